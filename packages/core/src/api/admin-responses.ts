/** Wire shapes of the admin-api, bulk-operations and backpressure extensions (snake_case, as served), from their zod schemas. */
export * from '../schemas/responses/admin.js';
export * from '../schemas/responses/bulk.js';
export type { QueuePressure } from '../schemas/responses/jobs.js';
export type { AdminBulkResponse } from '../schemas/responses/dead-letter.js';
