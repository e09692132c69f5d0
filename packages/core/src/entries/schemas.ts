/**
 * @ojskit/core/schemas: the wire shapes: zod schemas of the job envelope, enqueue and worker requests, retry
 * and unique policies; the parsers that validate requests (what the engine runs on every input); the limits
 * and patterns they enforce; and the response schemas with their types.
 */
export * from '../schemas/patterns.js';
export * from '../schemas/job.js';
export * from '../schemas/retry-policy.js';
export { retryDelayMs } from '../retry/backoff.js';
export * from '../unique/policy.js';
export * from '../schemas/enqueue.js';
export * from '../schemas/worker-requests.js';
export * from '../api/responses.js';
export * from '../api/admin-responses.js';
export { OjsEventSchema } from '../events/event.js';
export { OjsErrorBodySchema } from '../errors/ojs-error.js';
export * from '../schemas/rate-limit.js';
export * from '../schemas/cron-overlap.js';
export * from '../priority/age-boost-input.js';
