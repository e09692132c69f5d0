/**
 * Response bodies of the OJS operations, exactly as they go on the wire. Each is one zod schema in
 * `schemas/responses/` (validator, OpenAPI component and JSON Schema at once); the types here are derived from them.
 */
export * from '../schemas/responses/common.js';
export * from '../schemas/responses/jobs.js';
export * from '../schemas/responses/worker.js';
export * from '../schemas/responses/queues.js';
export * from '../schemas/responses/dead-letter.js';
export * from '../schemas/responses/cron.js';
export * from '../schemas/responses/workflows.js';
export * from '../schemas/responses/events.js';
export * from '../schemas/responses/system.js';
export * from '../schemas/responses/history.js';
