/** The one mapper between the SDK's camelCase types and the protocol's snake_case wire bodies. */
export * from './time.js';
export * from './policies.js';
export * from './job.js';
export * from './enqueue.js';
export * from './workflow.js';
export * from './cron.js';
export * from './queue.js';
export * from './progress.js';
export * from './history.js';
export * from './worker-protocol.js';
