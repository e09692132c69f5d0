/**
 * @ojskit/core: what an application needs to run OJS in process: the `Engine` and its options, the `OjsApi`
 * it implements with its wire-shaped responses, jobs, states, events and errors. Adapter authors import the
 * seam from `@ojskit/core/driver`; the other subpaths (`/lifecycle`, `/schemas`, `/formats`, `/testing`) are
 * listed in the README.
 */
export { Engine } from './engine/engine.js';
export * from './engine/options.js';
export type { AckManyResult } from './engine/ops/worker.js';
export { ANONYMOUS_WORKER } from './engine/ops/worker.js';
export type { OverdueJob, OverdueJobsResponse, OverdueReason } from './engine/ops/overdue.js';
export type { ListQuery, OjsApi } from './api/ojs-api.js';
export type * from './api/responses.js';
export type { EventFilter } from './events/filter.js';
export { EVENT_TYPES, SINCE_FIELDS, TRANSITION_EVENT_TYPES, type EventType, type JobEventData, type OjsEvent } from './events/event.js';
export type { Job, JobError, RetryPolicyWire } from './schemas/job.js';
export * from './lifecycle/states.js';
export * from './errors/catalog.js';
export * from './errors/ojs-error.js';
export { systemClock, type Clock } from './clock.js';
