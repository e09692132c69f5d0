/** The job as the SDK shows it (camelCase, `Date`s, ms), read from the wire envelope. */
import type { Job as WireJob, JobError as WireJobError, JobState } from '@ojskit/core';
import { dateFromWire } from './time.js';
import { retryPolicyFromWire, uniquePolicyFromWire, type RetryPolicy, type UniquePolicyInput } from './policies.js';

/** One recorded failure of a job. */
export interface JobError {
  /** `handler_error`, `timeout`, `cancelled`, `visibility_timeout`, … */
  code: string;
  /** The error class (`TypeError`, `timeout`, …). */
  type: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  backtrace?: unknown;
  /** The attempt that failed. */
  attempt: number;
  occurredAt: Date;
}

/**
 * A job. `Args` and `Result` come from the job-type registry when the client or worker has one.
 * Unknown top-level attributes of the envelope are kept in `attributes`.
 */
export interface Job<Args extends unknown[] = unknown[], Result = unknown> {
  id: string;
  type: string;
  queue: string;
  args: Args;
  meta: Record<string, unknown>;
  priority: number;
  state: JobState;
  /** Executions started so far; the first run is attempt 1. */
  attempt: number;
  maxAttempts: number;
  createdAt: Date;
  enqueuedAt?: Date;
  scheduledAt?: Date;
  expiresAt?: Date;
  startedAt?: Date;
  completedAt?: Date;
  discardedAt?: Date;
  cancelledAt?: Date;
  expiredAt?: Date;
  activatedAt?: Date;
  result?: Result;
  /** The latest failure (removed when the job completes). */
  error?: JobError;
  /** Every recorded failure, oldest first. */
  errors: JobError[];
  retryDelayMs?: number;
  nextAttemptAt?: Date;
  retry?: RetryPolicy;
  unique?: UniquePolicyInput;
  tags: string[];
  timeoutMs?: number;
  visibilityTimeoutMs?: number;
  workerId?: string;
  /** Results of the earlier steps of a chain (or of a batch's members, for its callbacks), by index. */
  parentResults?: unknown[];
  workflowId?: string;
  schema?: string;
  /** The state before a cancel or activate, on the job those calls return. */
  previousState?: JobState;
  /** True when an enqueue with a unique policy `ignore` returned an existing job instead of creating one. */
  deduplicated?: boolean;
  /** Top-level attributes the protocol does not define, kept verbatim. */
  attributes: Record<string, unknown>;
}

// Every wire key this module reads; anything else is an unknown attribute and lands in `attributes`.
const KNOWN_KEYS = new Set([
  'specversion',
  'id',
  'type',
  'queue',
  'args',
  'meta',
  'priority',
  'state',
  'attempt',
  'max_attempts',
  'created_at',
  'enqueued_at',
  'scheduled_at',
  'expires_at',
  'started_at',
  'completed_at',
  'discarded_at',
  'cancelled_at',
  'expired_at',
  'activated_at',
  'result',
  'error',
  'errors',
  'retry_delay_ms',
  'next_attempt_at',
  'retry',
  'unique',
  'tags',
  'timeout_ms',
  'timeout',
  'visibility_timeout_ms',
  'worker_id',
  'parent_results',
  'workflow_id',
  'schema',
  'previous_state',
]);

/** A recorded failure, from the wire. */
export function jobErrorFromWire(wire: WireJobError): JobError {
  const error: JobError = {
    code: wire.code,
    type: wire.type,
    message: wire.message,
    attempt: wire.attempt,
    occurredAt: dateFromWire(wire.occurred_at),
  };
  if (wire.retryable !== undefined) error.retryable = wire.retryable;
  if (wire.details !== undefined) error.details = wire.details;
  if (wire.backtrace !== undefined) error.backtrace = wire.backtrace;
  return error;
}

/**
 * Makes the plain object `jobFromWire` returns with `new` rather than an object literal. V8 tracks each
 * literal's allocation site and, when most objects from one are still alive at a young-generation GC, makes
 * that site allocate in the old generation from then on, for good. `enqueueMany` returns a thousand views at
 * once, all alive, which could do that to this site; the worker then made every job's view (for `completed`
 * listeners) in the old generation, where the young strings and dates it points to stay alive until a full
 * GC. It happened in about half of the processes that had bulk-enqueued: ~0.5 KB more promoted per processed
 * job, twice the young-GC time and ~10 % fewer jobs/s on Redis. A `new`-made object has no allocation site.
 * The prototype is `Object.prototype`, so the view stays a plain object.
 */
const JobView = function (this: Job, wire: WireJob) {
  this.id = wire.id;
  this.type = wire.type;
  this.queue = wire.queue;
  this.args = wire.args;
  this.meta = wire.meta ?? {};
  this.priority = wire.priority ?? 0;
  this.state = wire.state;
  this.attempt = wire.attempt ?? 0;
  this.maxAttempts = wire.max_attempts;
  this.createdAt = dateFromWire(wire.created_at);
  this.errors = wire.errors ? wire.errors.map(jobErrorFromWire) : [];
  this.tags = wire.tags ?? [];
  this.attributes = {};
} as unknown as new (wire: WireJob) => Job;
(JobView as unknown as { prototype: object }).prototype = Object.prototype;

/** The SDK view of a wire job envelope. */
export function jobFromWire<Args extends unknown[] = unknown[], Result = unknown>(wire: WireJob): Job<Args, Result> {
  const job = new JobView(wire) as Job<Args, Result>;
  // Straight-line on purpose: this runs once per fetched job on the worker's hot path.
  if (typeof wire.enqueued_at === 'string') job.enqueuedAt = dateFromWire(wire.enqueued_at);
  if (typeof wire.scheduled_at === 'string') job.scheduledAt = dateFromWire(wire.scheduled_at);
  if (typeof wire.expires_at === 'string') job.expiresAt = dateFromWire(wire.expires_at);
  if (typeof wire.started_at === 'string') job.startedAt = dateFromWire(wire.started_at);
  if (typeof wire.completed_at === 'string') job.completedAt = dateFromWire(wire.completed_at);
  if (typeof wire.discarded_at === 'string') job.discardedAt = dateFromWire(wire.discarded_at);
  if (typeof wire.cancelled_at === 'string') job.cancelledAt = dateFromWire(wire.cancelled_at);
  if (typeof wire.expired_at === 'string') job.expiredAt = dateFromWire(wire.expired_at);
  if (typeof wire.activated_at === 'string') job.activatedAt = dateFromWire(wire.activated_at);
  if (typeof wire.next_attempt_at === 'string') job.nextAttemptAt = dateFromWire(wire.next_attempt_at);
  if ('result' in wire && wire.result !== undefined) job.result = wire.result as Result;
  if (wire.error) job.error = jobErrorFromWire(wire.error);
  if (wire.retry_delay_ms !== undefined) job.retryDelayMs = wire.retry_delay_ms;
  if (wire.retry) job.retry = retryPolicyFromWire(wire.retry);
  if (wire.unique) job.unique = uniquePolicyFromWire(wire.unique);
  const timeoutMs = wire.timeout_ms ?? (typeof wire.timeout === 'number' ? wire.timeout * 1000 : undefined);
  if (timeoutMs !== undefined) job.timeoutMs = timeoutMs;
  if (wire.visibility_timeout_ms !== undefined) job.visibilityTimeoutMs = wire.visibility_timeout_ms;
  if (wire.worker_id !== undefined && wire.worker_id !== null) job.workerId = wire.worker_id;
  if (wire.parent_results) job.parentResults = wire.parent_results;
  if (wire.workflow_id !== undefined && wire.workflow_id !== null) job.workflowId = wire.workflow_id;
  if (wire.schema !== undefined) job.schema = wire.schema;
  if (typeof wire.previous_state === 'string') job.previousState = wire.previous_state as JobState;
  for (const key in wire) {
    if (!KNOWN_KEYS.has(key)) job.attributes[key] = wire[key];
  }
  return job;
}
