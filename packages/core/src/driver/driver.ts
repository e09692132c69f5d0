/**
 * The driver contract: the small set of atomic storage primitives every ojskit backend implements.
 *
 * The engine owns every protocol decision (which state follows a failure, when a retry is due, what a
 * chain does next). A driver only stores, indexes and moves jobs, and guarantees that each method below
 * is atomic where the data lives (one Lua script, one SQL statement or transaction, one synchronous step
 * in memory): concurrent callers can never both win a guarded change. Drivers never read a clock: every
 * time arrives as `now` (epoch ms) and `nowIso` (the same instant as an RFC 3339 string).
 *
 * Index rules every driver keeps, derived from a job's state and internals (records.ts):
 * - `available`: ordered by priority (higher first), then by a monotonic sequence number the driver assigns
 *   each time the job *enters* `available` (FIFO by the moment it last became available).
 * - `scheduled`, `retryable`: ordered by `x.dueAt`.
 * - `active`: ordered by `min(x.visibleUntil, x.timeoutAt)`.
 * - `scheduled`, `available`, `retryable` with `x.expiresAt`: findable by expiry.
 * - `discarded` with `x.deadLetter`: the dead-letter queue.
 * - terminal states: ordered by `x.finishedAt` (retention).
 * - per queue, a count of jobs in each state.
 */
import type { JobState } from '../lifecycle/states.js';
import type { Job, JobError } from '../schemas/job.js';
import type { EventTransport } from '../events/transport.js';
import type { JobInternals, JobSummary, StoredJob } from './records.js';
import type { JobHistory, TransitionNote } from '../history/job-history.js';
import type { DepthBounds, DriverQueueConfig, QueueFullRejection } from './admin.js';

/** What a backend can do, as data: drives the manifest, contract skips and the playground. */
export interface DriverCapabilities {
  /** `jobInsert` accepts a caller's open transaction (`tx`). */
  transactionalEnqueue: boolean;
  /** Events published through `events` reach every process sharing the store. */
  crossProcessEvents: boolean;
  /** `strong` when the unique check and the insert are one atomic step. */
  uniqueStrength: 'strong' | 'best_effort';
  /** Jobs survive a restart of the process. */
  durable: boolean;
  /**
   * Calls take effect in the order they are made: a call made after another, even before that one settles,
   * sees its effects (one connection executing commands in order, or a store that acts when called). The
   * engine then lets a FETCH waiting in the same process claim right behind an insert it just issued, one
   * round trip sooner than the insert's event would. Absent means false (pooled connections, for example).
   */
  orderedCalls?: boolean;
  /**
   * Every state change writes a history line in the same atomic step (`jobHistory` reads them): see
   * history/job-history.ts. Absent means false.
   */
  history?: boolean;
  /**
   * The claim enforces rate limits (`x.rateLimit`, a queue configuration's `rate_limit` and `concurrency`)
   * atomically in the store, by rate-limit/rule.ts, and `rateLimitState` answers. Absent means false: an
   * enqueue with `options.rate_limit` then answers `422 unsupported`.
   */
  rateLimiting?: boolean;
  /**
   * Jobs reach workers through a dispatch log (the Kafka adapter): the driver applies core's
   * `DISPATCH_TRANSITIONS` (`available → pending` when the log delivers a job, `pending → active` by a claim),
   * claims only dispatched `pending` jobs, and refuses ACTIVATE of a dispatched one. Absent means false: the
   * driver refuses those rows.
   */
  dispatchLog?: boolean;
}

/** Outcome of one job of an insert. */
export type InsertOutcome =
  | { status: 'inserted'; job: Job; /** The job cancelled by `on_conflict: replace`, in its new `cancelled` state. */ replaced?: Job }
  | { status: 'existing'; job: Job };

/** Result of `jobInsert`: all inserted (or matched), or nothing stored. */
export type InsertResult =
  | { ok: true; outcomes: InsertOutcome[]; /** Backlog of each bounded queue after the insert (when `bounds` were given). */ depths?: Record<string, number> }
  | InsertConflict
  | QueueFullRejection;

/** An insert refused by an id or a unique key: nothing of it was stored. */
export interface InsertConflict {
  ok: false;
  index: number;
  reason: 'duplicate_id' | 'unique';
  existing: Job;
}

export interface InsertParams {
  jobs: StoredJob[];
  now: number;
  nowIso: string;
  /** A caller's open transaction (only when `capabilities.transactionalEnqueue`). */
  tx?: unknown;
  /**
   * Backpressure: the most jobs each named queue may hold in `STATE_SETS.backlog` states. Checked in the same
   * atomic step as the insert, counting earlier jobs of this insert; the first job that would go past its
   * queue's bound aborts the whole insert with `queue_full` (before the unique and id checks of later jobs).
   * `'stored'`: the engine has not read the configurations yet; the driver reads each job queue's
   * `max_depth` from its own queue configurations, in the same atomic step (drivers with `orderedCalls` only:
   * the engine then issues the insert without waiting for a read of its own).
   */
  bounds?: DepthBounds | 'stored';
}

export interface ClaimParams {
  /** Queues in priority order: fill from the first, then the next. */
  queues: readonly string[];
  limit: number;
  workerId: string;
  now: number;
  nowIso: string;
  /** Reservation length for this claim; when absent each job's `x.visibilityMs`. */
  visibilityMs?: number;
  /**
   * Claim the jobs a dispatch log delivered instead of `available` ones (only with `capabilities.dispatchLog`;
   * a driver without it rejects the call): per queue, in order, skipping paused queues, the `pending` jobs
   * carrying `x.dispatchedAt`, by priority then the order they were dispatched in (a queue with an age boost:
   * core's rank first), each moved by `DISPATCH_EFFECTS.claim` (the same writes as `EFFECTS.claim`, and the
   * marker removed), or by `DISPATCH_EFFECTS.expire` when past `x.expiresAt` (reported in `expired`). Nothing is
   * promoted and rate limits are not applied. As for every claim, one atomic step in the store: no job is
   * returned to two claimers, and a job staged by `pending: true` (no marker) is never taken.
   */
  dispatched?: boolean;
}

export interface ClaimResult {
  /** Claimed jobs, now `active`, in claim order. */
  jobs: Job[];
  /** Jobs the claim promoted from `scheduled`/`retryable` to `available` on the way (for events; `from` SHOULD be set). */
  promoted: JobSummary[];
  /** Jobs the claim found expired and moved to `discarded` (for events). */
  expired: Job[];
  /**
   * Set when rate limits held back a job the claim could otherwise have taken (`capabilities.rateLimiting`):
   * a FETCH that waits then also wakes when a job of its queues leaves `active`, and, with `retryInMs`, once
   * the spacing that held a job has passed (ms, by the store's clock).
   */
  held?: { retryInMs?: number };
}

/** A guarded compare-and-set on one job. */
export interface TransitionOp {
  id: string;
  /**
   * The queue the caller saw the job in: a hint a driver may look there first with, never a guard (a job that
   * moved queues is still found by its id).
   */
  queue?: string;
  /** Guard: the job's current state must be one of these (take it from `allowedFrom`). */
  from: readonly JobState[];
  /** The new state. Equal to the current state for an in-place update (progress); `from` must then include it. */
  to: JobState;
  /** Further guards, each checked only when given. */
  expect?: {
    attempt?: number;
    /** Only checked when the job has a `worker_id`. */
    workerId?: string;
    visibleUntil?: number;
    deadLetter?: boolean;
  };
  /** Envelope fields to write. */
  set?: Partial<Job>;
  /** Envelope fields to remove. */
  unset?: readonly string[];
  /** Internal fields to write; `null` removes the field. */
  x?: { [K in keyof JobInternals]?: JobInternals[K] | null };
  /** What to return on success (default `job`). */
  returning?: 'job' | 'summary';
  /**
   * When, by what trigger and why, for the history line a driver with `capabilities.history` writes with the
   * change. The engine sets it on every op that changes the state.
   */
  note?: TransitionNote;
}

export type TransitionResult =
  | { ok: true; from: JobState; job: Job }
  | { ok: true; from: JobState; summary: JobSummary }
  | { ok: false; /** Current state, or `null` when no such job. */ state: JobState | null; job?: Job };

/** One ACK of `jobCompleteMany`. */
export interface CompleteItem {
  id: string;
  /** Guard, when given: the attempt the worker ran. */
  attempt?: number;
  /** Guard, when given: the worker holding the job (only checked when the job has a `worker_id`). */
  workerId?: string;
  /** The handler's result, stored as `result`. The key is absent when the worker sent none (`null` is a result). */
  result?: unknown;
}

export interface CompleteManyParams {
  /** Independent completions, applied in order (the same id twice: the second sees the first's result). */
  jobs: readonly CompleteItem[];
  now: number;
  nowIso: string;
  /**
   * What a completed job comes back as (default `job`). With `summary`, a workflow member (`workflow_id`) still
   * comes back in full: the engine advances its workflow with it, and must not read it again.
   */
  returning?: 'job' | 'summary';
}

/** The effects (core's `EFFECTS`) a failure of an active job may apply. */
export type FailOutcome = 'retry' | 'discard' | 'reclaim' | 'reclaimDiscard' | 'requeue';

/**
 * One failure of `jobFailMany`: an active job leaves its reservation by `EFFECTS[outcome]`. The engine
 * decides the outcome (retry policy, backoff, dead letter); the driver applies it.
 */
export interface FailItem {
  id: string;
  outcome: FailOutcome;
  /** Guard: the attempt that failed. `requeue` also restores the attempt to this value − 1 (not below 0). */
  attempt: number;
  /** Guard, when given: the worker holding the job (only checked when the job has a `worker_id`). */
  workerId?: string;
  /** Guard, when given: the visibility deadline the rescuer saw (a heartbeat that moved it since wins). */
  visibleUntil?: number;
  /** All outcomes but `requeue`: the error, stored as `error`. */
  error?: JobError;
  /** All outcomes but `requeue`: the error history with `error` last, stored as `errors`. */
  errors?: JobError[];
  /** `retry`: the backoff, stored as `retry_delay_ms`; `next_attempt_at` and `x.dueAt` are `now` + it. */
  retryDelayMs?: number;
  /** `discard`, `reclaimDiscard`: the job goes into the dead-letter queue (`x.deadLetter`). */
  deadLetter?: boolean;
}

export interface FailManyParams {
  /** Independent failures, applied in order. */
  jobs: readonly FailItem[];
  now: number;
  nowIso: string;
}

export interface HeartbeatParams {
  ids: readonly string[];
  now: number;
  /** Extension length; when absent each job's `x.claimVisibilityMs` (else `x.visibilityMs`). */
  visibilityMs?: number;
  workerId?: string;
}

export interface HeartbeatResult {
  /** Active jobs whose deadline moved to `visibleUntil`. */
  extended: Array<JobSummary & { visibleUntil: number; worker_id?: string }>;
  /** Current state of every requested id (`null` when unknown). */
  states: Record<string, JobState | null>;
}

export interface JobListParams {
  queue?: string;
  state?: JobState;
  type?: string;
  /** Only jobs in (true) or out of (false) the dead-letter queue. */
  deadLetter?: boolean;
  /** Only jobs with `created_at` ≥ this (an RFC 3339 text as the engine stamps it: compared as text). */
  createdFrom?: string;
  /** Only jobs with `created_at` < this. */
  createdBefore?: string;
  limit: number;
  offset: number;
}

/**
 * What `jobPrune` deletes: terminal jobs finished before `before`, narrowed by each filter given. The pruner
 * (engine/services/pruner.ts) calls it once unfiltered at the longest retention in force (a store may then drop
 * whole partitions), then per state and per configured queue at the shorter ones.
 */
export interface PruneParams {
  /** `x.finishedAt` < before. */
  before: number;
  limit: number;
  /** Dead-lettered jobs: left alone (absent, false), included (true), or the only ones (`'only'`). */
  deadLetter?: boolean | 'only';
  /** Only jobs in this (terminal) state. */
  state?: JobState;
  /** Only jobs of this queue. */
  queue?: string;
  /** No job of these queues (the ones whose configuration sets their own retention). */
  exceptQueues?: readonly string[];
}

/** A queue's persisted record. */
export interface QueueRecord {
  name: string;
  paused: boolean;
  created_at: string;
  paused_at?: string;
  resumed_at?: string;
}

/** A worker's last heartbeat and the directive an operator set for it. */
export interface WorkerRecord {
  id: string;
  state: string;
  directive: 'running' | 'quiet' | 'terminate';
  last_heartbeat_at: string;
  lastHeartbeatMs: number;
  active_job_ids: string[];
  hostname?: string;
  pid?: number;
  queues?: string[];
  concurrency?: number;
  labels?: Record<string, unknown>;
}

/** A cron registration. Wire fields in snake_case; `nextRunMs` is the index the firer uses. */
export interface CronRecord {
  name: string;
  expression: string;
  timezone: string;
  overlap_policy: 'skip' | 'allow' | 'cancel_previous' | 'enqueue';
  enabled: boolean;
  description?: string;
  job_template: { type: string; args: unknown[]; meta?: Record<string, unknown>; options?: Record<string, unknown> };
  created_at: string;
  next_run_at: string | null;
  last_run_at: string | null;
  run_count: number;
  nextRunMs: number | null;
  lastJobId?: string;
}

/** A workflow document. Drivers store it opaquely and guard writes by `version`. */
export interface WorkflowRecord {
  id: string;
  version: number;
  [field: string]: unknown;
}

/**
 * How long a transport may hold events before publishing them to other processes, so that those of that time
 * share one write (ms). An idle worker's job publishes `job.enqueued`, `job.started` and `job.completed` a
 * fraction of a millisecond apart, each behind another answer; the adapters' `eventPublishDelayMs` default.
 */
export const DEFAULT_EVENT_PUBLISH_DELAY_MS = 2;

/**
 * The storage seam. Each method is atomic; see the module doc for the index rules.
 * Method names are Entity+Verb, one params object each.
 */
export interface Driver extends DriverQueueConfig {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  /** Cross-process event transport; when absent the engine keeps events in-process. */
  readonly events?: EventTransport;

  /**
   * Stores new jobs all-or-nothing, in order, registering their queues. For each job:
   * 1. its id exists → abort the whole insert with `duplicate_id`;
   * 2. when `x.uniqueKey` is set, look for a stored job with that key whose state is in this job's
   *    `x.uniqueStates` and whose `x.uniqueUntil` is absent or > now (jobs earlier in the same insert count).
   *    On a match, by `x.uniqueOnConflict`: `reject` → abort with `unique`; `ignore` → outcome `existing`,
   *    nothing stored for this job; `replace` → move the match to `cancelled` (set `cancelled_at`,
   *    `x.finishedAt`) and store this job; `replace_except_schedule` → as replace, and when the match has
   *    `scheduled_at` and this job is `scheduled` or `available`, this job takes the match's `scheduled_at`,
   *    `x.dueAt` and state `scheduled`.
   * On abort nothing of the insert persists.
   */
  jobInsert(params: InsertParams): Promise<InsertResult>;

  /**
   * Claims up to `limit` jobs. Per queue, in order, skipping paused queues:
   * promote due `scheduled`/`retryable` jobs (`x.dueAt` ≤ now) to `available` with `enqueued_at` = nowIso
   * (or to `discarded` when `x.expiresAt` < now, as in `jobExpire`); then take `available` jobs by priority
   * and FIFO sequence. A job with `x.expiresAt` < now is moved to `discarded` (`discarded_at` and
   * `expired_at` = nowIso, `x.finishedAt` = now) and reported in `expired`, never claimed. A claimed job
   * becomes `active` with `attempt` + 1, `started_at` = nowIso, `worker_id` = workerId, `next_attempt_at`
   * removed, `x.claimVisibilityMs` = visibilityMs ?? `x.visibilityMs`, `x.visibleUntil` = now +
   * claimVisibilityMs, `x.timeoutAt` = now + `x.timeoutMs`, `x.progress` removed.
   * No job is ever returned to two claimers. With `capabilities.rateLimiting`, a job the rule of
   * rate-limit/rule.ts refuses (its `x.rateLimit`, its queue's configured limit) stays `available` in place
   * and the claim goes on with the jobs behind it.
   */
  jobClaim(params: ClaimParams): Promise<ClaimResult>;

  /**
   * ACK, one or many in one round trip: each job that is `active` (and passes its guards) becomes `completed`
   * by `EFFECTS.ack` (`completed_at` = nowIso, `x.finishedAt` = now, `result` when given; `error`, `worker_id`,
   * `next_attempt_at` and the reservation removed), leaving the `active` index for the finished one. Each job is
   * its own compare-and-set: a job another caller completed, failed, rescued or cancelled first is refused with
   * its current state (`null` when unknown) and, when it exists, the job. Results in item order.
   */
  jobCompleteMany(params: CompleteManyParams): Promise<TransitionResult[]>;

  /**
   * FAIL, a requeue, an execution timeout or a reclaim, one or many in one round trip: each job that is `active`
   * (and passes its guards) moves by `EFFECTS[outcome]`: `retry` → `retryable` (due at now + `retryDelayMs`),
   * `discard`/`reclaimDiscard` → `discarded` (into the dead-letter queue with `deadLetter`), `reclaim` →
   * `available` (the attempt consumed), `requeue` → `available` (the attempt restored). Entering `available`
   * assigns a new FIFO sequence. Each job is its own compare-and-set, refused as in `jobCompleteMany`; a
   * completed job returns in full. Results in item order.
   */
  jobFailMany(params: FailManyParams): Promise<TransitionResult[]>;

  /**
   * One guarded compare-and-set (see `TransitionOp`), for the moves the engine makes seldom: CANCEL, ACTIVATE,
   * a dead-letter retry, in-place updates (progress). Entering `available` assigns a new FIFO sequence.
   */
  jobTransition(op: TransitionOp): Promise<TransitionResult>;

  jobGet(id: string): Promise<StoredJob | null>;

  /**
   * A job's history lines, oldest first, as the transitions wrote them (`capabilities.history`); null when no
   * such job. Each state change of every primitive writes one line in its own atomic step: the insert
   * (`from: null`, trigger `push`; a unique `replace` also a line on the job it cancels), a claim (`fetch`, with
   * the claim's worker) and the promotions (`timer`) and expiries (`expiry`) it makes on the way, `jobPromote`,
   * `jobExpire`, and each `jobTransition(Many)` whose `to` differs from the current state (trigger, `at` and
   * reason from `op.note`; the worker from the job, or from before the change when it clears `worker_id`). At
   * most `MAX_HISTORY_ENTRIES` lines, the oldest dropped first and counted.
   */
  jobHistory?(params: { id: string }): Promise<JobHistory | null>;

  /** Newest first (by id). `total` counts every match. */
  jobList(params: JobListParams): Promise<{ jobs: Job[]; total: number }>;

  /** Removes a job entirely when the guards hold; returns what was removed. */
  jobDelete(params: { id: string; expect?: { states?: readonly JobState[]; deadLetter?: boolean } }): Promise<Job | null>;

  /** Extends the visibility deadline of each listed job that is `active` (and held by `workerId`, when both have one). */
  jobHeartbeat(params: HeartbeatParams): Promise<HeartbeatResult>;

  /** Moves due `scheduled`/`retryable` jobs (any queue) to `available`, or to `discarded` when expired. */
  jobPromote(params: { now: number; nowIso: string; limit: number }): Promise<{ promoted: JobSummary[]; expired: Job[] }>;

  /** Moves `scheduled`/`available`/`retryable` jobs with `x.expiresAt` < now to `discarded` (`discarded_at`, `expired_at` = nowIso). */
  jobExpire(params: { now: number; nowIso: string; limit: number }): Promise<Job[]>;

  /** `active` jobs whose `min(x.visibleUntil, x.timeoutAt)` ≤ now, oldest deadline first. Read only. */
  jobListOverdue(params: { now: number; limit: number }): Promise<StoredJob[]>;

  /**
   * Deletes up to `limit` terminal jobs with `x.finishedAt` < before that match the filters (see `PruneParams`).
   * Returns how many.
   */
  jobPrune(params: PruneParams): Promise<number>;

  /** Current population per state; of one queue, or of all queues. */
  jobCounts(params: { queue?: string }): Promise<Record<JobState, number>>;

  queueList(): Promise<QueueRecord[]>;
  queueGet(name: string): Promise<QueueRecord | null>;
  /** Persists the pause flag, creating the queue when needed. */
  queueSetPaused(params: { name: string; paused: boolean; nowIso: string }): Promise<QueueRecord>;

  /** Records a heartbeat, keeping any directive already set; returns the stored record. */
  workerRecord(info: Omit<WorkerRecord, 'directive'>): Promise<WorkerRecord>;
  workerSetDirective(params: { id: string; directive: WorkerRecord['directive']; nowIso: string; now: number }): Promise<WorkerRecord>;
  workerList(): Promise<WorkerRecord[]>;
  workerDelete(id: string): Promise<void>;

  /** Creates or replaces a cron; `created` is false when one with the name existed. */
  cronUpsert(record: CronRecord): Promise<{ created: boolean }>;
  cronGet(name: string): Promise<CronRecord | null>;
  cronList(): Promise<CronRecord[]>;
  cronDelete(name: string): Promise<CronRecord | null>;
  /** Applies `patch` only while the cron's `nextRunMs` equals `expectNextRunMs`: one firing per occurrence. */
  cronAdvance(params: { name: string; expectNextRunMs: number | null; patch: Partial<CronRecord> }): Promise<boolean>;

  workflowGet(id: string): Promise<WorkflowRecord | null>;
  /**
   * Writes a workflow document and inserts jobs in one atomic step. `expectVersion: null` creates it (fails
   * if the id exists); otherwise the stored version must equal `expectVersion`. The stored version becomes
   * `workflow.version`. Jobs whose id already exists are skipped (idempotent re-drives). Returns false when
   * the guard failed and nothing was written.
   */
  workflowSave(params: { workflow: WorkflowRecord; expectVersion: number | null; insert?: StoredJob[]; now: number; nowIso: string }): Promise<boolean>;

  /** Takes or renews a named lease for `ttlMs`; true when `owner` holds it afterwards. */
  leaseAcquire(params: { name: string; owner: string; ttlMs: number; now: number }): Promise<boolean>;
  leaseRelease(params: { name: string; owner: string }): Promise<void>;

  /** Round trip to the store, for health checks. */
  ping(): Promise<void>;
  /** Deletes everything this driver stores (tests, admin reset). */
  reset(): Promise<void>;
  close(): Promise<void>;
}
