/** @ojskit/client: the ojskit SDK — a producer `Client` and a `Worker` runtime over any OJS transport. */
export { Client, type JobSpec, type ScheduleAt } from './client/client.js';
export { CronJobs, DeadLetter, Queues, Workflows, type DeadLetterFilter } from './client/namespaces.js';
export { Jobs, Workers, type BulkSelection, type PageQuery } from './client/admin-namespaces.js';
export type {
  AdminPage,
  AdminStats,
  BulkEnqueueItem,
  BulkEnqueueResult,
  BulkJobItem,
  BulkJobResult,
  JobFilter,
  QueueConfig,
  QueueConfigInput,
  QueueRateLimits,
  WorkerInfo,
  WorkerSummary,
} from './mapping/admin.js';
export { waitForJob, type WaitForOptions } from './client/wait-for.js';
export { batch, chain, group, step, type WorkflowOptions } from './client/workflow-builders.js';
export { HandlerNotFoundError, JobCancelledError, JobLostError, JobTimeoutError, NonRetryableError, WaitTimeoutError, WorkerClosingError } from './errors.js';
export type { Job, JobError } from './mapping/job.js';
export type { EnqueueOptions, RateLimitInput } from './mapping/enqueue.js';
export type { RetryPolicy, RetryPolicyInput, UniquePolicyInput, UniqueConflict, BackoffStrategy } from './mapping/policies.js';
export type { Workflow, WorkflowDefinition, WorkflowMember, WorkflowStep, BatchCallbacks } from './mapping/workflow.js';
export type { Cron, CronInput, OverlapPolicy } from './mapping/cron.js';
export type { Queue, QueueStats, Pagination, DeadLetterStats } from './mapping/queue.js';
export type { Progress } from './mapping/progress.js';
export type { JobHistory, JobTransitionRecord } from './mapping/history.js';
export type { DurationInput, TimeInput } from './mapping/time.js';
export type { AnyJobs, ArgsOf, JobDefinition, JobRegistry, JobTypeOf, ResultOf } from './registry.js';
export { inProcess } from './transport/in-process.js';
export { supportsAckMany, type AckManyItem, type AckManyItemResult, type AckManyResponse, type BatchAck, type Transport } from './transport/transport.js';
export { Worker, type FailOutcome, type WorkerEvents, type WorkerStats } from './worker/worker.js';
export type { JobContext } from './worker/job-context.js';
export type { Handler, Middleware } from './worker/middleware.js';
export type { WorkerOptions, ResolvedWorkerOptions } from './worker/options.js';
/** The most batches one fetch asks for while handlers outpace the fetches (the worker contract bounds fetch sizes by it). */
export { DEEP_FETCH_BATCHES } from './worker/prefetch-depth.js';
export * from './transport/http.js';
