/** Response bodies of the admin-api extension: stats, queues, workers, job listing, queue configuration, overdue jobs. */
import { z } from 'zod';
import { JobSchema } from '../job.js';
import { AdminPaginationSchema, QueueStatusSchema, StateCountsSchema } from './common.js';
import { WorkerDirectiveSchema } from './worker.js';

/** A worker as the admin API lists it. */
export const AdminWorkerSchema = z
  .object({
    id: z.string(),
    state: z.string().describe('What the worker last reported (`running`, `quiet`, `terminate`, …).'),
    directive: WorkerDirectiveSchema.describe('What an operator asked of it; delivered on its next heartbeat.'),
    active_jobs: z.number().int().describe('How many jobs it reported holding.'),
    active_job_ids: z.array(z.string()),
    last_heartbeat_at: z.string(),
    stale: z.boolean().describe("Silent for longer than the engine's worker-death time."),
    hostname: z.string().optional(),
    pid: z.number().int().optional(),
    queues: z.array(z.string()).optional(),
    concurrency: z.number().int().optional(),
    labels: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'AdminWorker' });
export type AdminWorker = z.output<typeof AdminWorkerSchema>;

/** Worker counts: every known worker, live ones by reported state, and the stale ones. */
export const WorkerSummarySchema = z
  .object({ total: z.number().int(), running: z.number().int(), quiet: z.number().int(), terminate: z.number().int(), stale: z.number().int() })
  .meta({ id: 'WorkerSummary' });
export type WorkerSummary = z.output<typeof WorkerSummarySchema>;

export const AdminWorkerListResponseSchema = z
  .object({ items: z.array(AdminWorkerSchema), summary: WorkerSummarySchema, pagination: AdminPaginationSchema })
  .meta({ id: 'AdminWorkerListResponse' });
export type AdminWorkerListResponse = z.output<typeof AdminWorkerListResponseSchema>;

export const WorkerDirectiveResponseSchema = z
  .object({ worker_id: z.string(), state: WorkerDirectiveSchema, directive: WorkerDirectiveSchema })
  .meta({ id: 'WorkerDirectiveResponse' });
export type WorkerDirectiveResponse = z.output<typeof WorkerDirectiveResponseSchema>;

export const AdminStatsResponseSchema = z
  .object({
    queues: z.number().int(),
    workers: z.number().int().describe('Live (not stale) workers: the protocol’s number.'),
    worker_summary: WorkerSummarySchema,
    jobs: StateCountsSchema,
    throughput: z.object({ processed_per_minute: z.number(), failed_per_minute: z.number() }).optional(),
    uptime_seconds: z.number(),
  })
  .meta({ id: 'AdminStats' });
export type AdminStatsResponse = z.output<typeof AdminStatsResponseSchema>;

export const AdminJobListResponseSchema = z.object({ items: z.array(JobSchema), pagination: AdminPaginationSchema }).meta({ id: 'AdminJobListResponse' });
export type AdminJobListResponse = z.output<typeof AdminJobListResponseSchema>;

/** A queue as the admin API lists it: its state and its jobs per state. */
export const AdminQueueSchema = z
  .object({ name: z.string(), state: QueueStatusSchema, paused: z.boolean(), counts: StateCountsSchema })
  .meta({ id: 'AdminQueue' });
export type AdminQueue = z.output<typeof AdminQueueSchema>;

export const AdminQueueListResponseSchema = z
  .object({ items: z.array(AdminQueueSchema), pagination: AdminPaginationSchema })
  .meta({ id: 'AdminQueueListResponse' });
export type AdminQueueListResponse = z.output<typeof AdminQueueListResponseSchema>;

export const AdminQueuePauseResponseSchema = z
  .object({ name: z.string(), paused: z.boolean(), paused_at: z.string().optional(), resumed_at: z.string().optional() })
  .meta({ id: 'AdminQueuePauseResponse' });
export type AdminQueuePauseResponse = z.output<typeof AdminQueuePauseResponseSchema>;

/** A queue's configuration as served (backpressure extension plus ojskit's concurrency and retention). */
export const QueueConfigResponseSchema = z
  .object({
    queue: z.string(),
    backpressure: z.object({
      max_depth: z.number().int().nullable(),
      strategy: z.literal('reject'),
      warning_threshold: z.number(),
      retry_after_seconds: z.number().int(),
    }),
    concurrency: z.number().int().nullable(),
    rate_limit: z
      .object({ max_per_second: z.number().nullable(), concurrency: z.number().int().nullable() })
      .nullable()
      .describe('The queue-level rate limit every claim from the queue checks (spec/rate-limits.md); null when none.'),
    retention: z.object({ completed_ms: z.number().int().optional(), discarded_ms: z.number().int().optional(), cancelled_ms: z.number().int().optional() }),
    age_boost: z
      .object({ interval_ms: z.number().int() })
      .nullable()
      .describe(
        'Priority aging (spec/admin.md, "Age boost"): jobs are claimed by enqueued_ms − priority × interval_ms, smallest first; null when the queue claims by priority then FIFO.',
      ),
    history: z
      .boolean()
      .describe(
        "Whether transitions of the queue's jobs are recorded (spec/history.md H9): false when the queue opted out (`history: false`) or the backend records no history.",
      ),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'QueueConfig' });
export type QueueConfigResponse = z.output<typeof QueueConfigResponseSchema>;

/** A queue's rate limits and where they stand (`GET /ojs/v1/admin/queues/:name/rate-limits`, spec/rate-limits.md R10). */
export const QueueRateLimitsResponseSchema = z
  .object({
    queue: z.string(),
    now: z.string().describe("The store's clock when it answered: spacing is measured with it."),
    queue_limit: z
      .object({ max_per_second: z.number().nullable(), concurrency: z.number().int().nullable() })
      .describe("The queue-level limit (its configuration's `rate_limit` and `concurrency`)."),
    window: z.object({
      last_claim_at: z.string().nullable(),
      interval_ms: z.number().nullable(),
      next_allowed_at: z.string().nullable().describe('Earliest time of the next limited claim from the queue.'),
    }),
    active: z.number().int().describe('Active jobs of the queue.'),
    keys: z
      .array(z.object({ key: z.string(), active: z.number().int(), concurrency: z.number().int().nullable() }))
      .describe('Concurrency keys of the queue: jobs in flight and the limit the jobs carry.'),
  })
  .meta({ id: 'QueueRateLimits' });
export type QueueRateLimitsResponse = z.output<typeof QueueRateLimitsResponseSchema>;

/** Why a job is overdue, named as the error the rescuer records when it moves the job. */
export const OverdueReasonSchema = z.enum(['visibility_timeout', 'timeout', 'worker_death']);
export type OverdueReason = z.output<typeof OverdueReasonSchema>;

/** One stuck job, as the admin API lists it. */
export const OverdueJobSchema = z
  .object({
    job_id: z.string(),
    type: z.string(),
    queue: z.string(),
    attempt: z.number().int(),
    worker_id: z.string().optional(),
    started_at: z.string().optional(),
    reason: OverdueReasonSchema.describe('The error the rescuer records when it moves the job.'),
    deadline: z.string().describe('The deadline that passed (for `worker_death`: last heartbeat + the worker death time).'),
    overdue_ms: z.number().int(),
  })
  .meta({ id: 'OverdueJob' });
export type OverdueJob = z.output<typeof OverdueJobSchema>;

/** `GET /ojs/v1/admin/overdue`: oldest deadline first; `truncated` when more than `limit` are overdue. */
export const OverdueJobsResponseSchema = z
  .object({ jobs: z.array(OverdueJobSchema), count: z.number().int(), truncated: z.boolean(), checked_at: z.string() })
  .meta({ id: 'AdminOverdueResponse' });
export type OverdueJobsResponse = z.output<typeof OverdueJobsResponseSchema>;
