/** Response bodies as the OpenAPI document describes them (the engine produces them; see `OjsApi`). */
import { z } from '@hono/zod-openapi';
import { JOB_STATES } from '@ojskit/core';
import { AckManyResponseSchema, JobSchema, OjsErrorBodySchema } from '@ojskit/core/schemas';
import { named } from './named.js';

const jsonObject = z.record(z.string(), z.unknown());

export const Job = named(JobSchema, 'Job');

export const ErrorEnvelope = z.object({ error: OjsErrorBodySchema }).openapi('ErrorEnvelope');

const Pagination = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), has_more: z.boolean(), next_cursor: z.string().optional() })
  .openapi('Pagination');

const AdminPagination = z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() }).openapi('AdminPagination');

const counts = Object.fromEntries(JOB_STATES.map((state) => [state, z.number().int()])) as Record<(typeof JOB_STATES)[number], z.ZodNumber>;
const StateCounts = z.object(counts).openapi('StateCounts');

export const JobEnvelopeResponse = z.looseObject({ job: Job }).openapi('JobResponse');
export const EnqueueResponse = z.looseObject({ job: Job, deduplicated: z.literal(true).optional() }).openapi('EnqueueResponse');
export const BatchEnqueueResponse = z.looseObject({ jobs: z.array(Job), count: z.number().int() }).openapi('BatchEnqueueResponse');
export const JobListResponse = z.looseObject({ jobs: z.array(Job), pagination: Pagination }).openapi('JobListResponse');
export const FetchResponse = z.looseObject({ jobs: z.array(Job), job: Job.optional() }).openapi('FetchResponse');
export const AckResponse = z
  .looseObject({ acknowledged: z.literal(true), id: z.string(), job_id: z.string(), state: z.literal('completed'), completed_at: z.string(), job: Job })
  .openapi('AckResponse');
export const AckBatchResponse = named(AckManyResponseSchema, 'AckBatchResponse');
export const NackResponse = z
  .looseObject({
    id: z.string(),
    job_id: z.string(),
    state: z.enum(JOB_STATES),
    attempt: z.number().int(),
    max_attempts: z.number().int(),
    job: Job,
    next_attempt_at: z.string().optional(),
    retry_delay_ms: z.number().int().optional(),
    discarded_at: z.string().optional(),
    completed_at: z.string().optional(),
    dead_lettered: z.boolean().optional(),
  })
  .openapi('NackResponse');
export const HeartbeatResponse = z
  .looseObject({
    state: z.enum(['running', 'quiet', 'terminate']),
    directive: z.enum(['running', 'quiet', 'terminate']),
    jobs_extended: z.array(z.string()),
    server_time: z.string(),
    jobs_cancelled: z.array(z.string()).optional(),
  })
  .openapi('HeartbeatResponse');
export const ProgressResponse = z
  .looseObject({
    job_id: z.string(),
    state: z.enum(JOB_STATES),
    progress: z.number().nullable(),
    message: z.string().nullable(),
    data: z.unknown(),
    updated_at: z.string().nullable(),
  })
  .openapi('ProgressResponse');

const QueueSummary = z.looseObject({ name: z.string(), status: z.enum(['active', 'paused']), paused: z.boolean(), created_at: z.string().optional() });
export const QueueListResponse = z.looseObject({ queues: z.array(QueueSummary), pagination: Pagination }).openapi('QueueListResponse');
export const QueueStatsResponse = z
  .looseObject({
    queue: z.looseObject({ name: z.string(), paused: z.boolean() }).extend(counts),
    stats: z.looseObject({ queue: z.string(), depth: z.number().int() }).extend(counts),
    name: z.string(),
    paused: z.boolean(),
    computed_at: z.string(),
  })
  .extend(counts)
  .openapi('QueueStatsResponse');
export const QueuePauseResponse = z
  .looseObject({
    queue: z.looseObject({
      name: z.string(),
      paused: z.boolean(),
      status: z.enum(['active', 'paused']),
      paused_at: z.string().optional(),
      resumed_at: z.string().optional(),
    }),
  })
  .openapi('QueuePauseResponse');

export const DeadLetterDeleteResponse = z.object({ deleted: z.literal(true), job_id: z.string() }).openapi('DeadLetterDeleteResponse');
export const BulkActionResponse = z
  .looseObject({
    action: z.string(),
    matched: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    errors: z.array(z.object({ job_id: z.string(), error: z.string() })).optional(),
  })
  .openapi('BulkActionResponse');
export const DeadLetterStatsResponse = z
  .looseObject({
    total: z.number().int(),
    by_queue: z.record(z.string(), z.number().int()),
    by_error_type: z.record(z.string(), z.number().int()),
    oldest_at: z.string().nullable(),
    newest_at: z.string().nullable(),
  })
  .openapi('DeadLetterStatsResponse');

const Cron = z
  .looseObject({
    name: z.string(),
    expression: z.string(),
    cron: z.string(),
    timezone: z.string(),
    overlap_policy: z.string(),
    enabled: z.boolean(),
    status: z.enum(['active', 'disabled']),
    job_template: jsonObject,
    type: z.string(),
    args: z.array(z.unknown()),
    options: jsonObject,
    description: z.string().optional(),
    created_at: z.string(),
    next_run_at: z.string().nullable(),
    last_run_at: z.string().nullable(),
    run_count: z.number().int(),
  })
  .openapi('Cron');
export const CronResponse = z.looseObject({ cron: Cron, cron_job: Cron }).openapi('CronResponse');
export const CronListResponse = z
  .looseObject({ crons: z.array(Cron), cron_jobs: z.array(Cron), count: z.number().int(), pagination: Pagination })
  .openapi('CronListResponse');
export const CronDeleteResponse = z.looseObject({ cron: Cron, deleted: z.literal(true), name: z.string() }).openapi('CronDeleteResponse');

const Workflow = z
  .looseObject({
    id: z.string(),
    type: z.enum(['chain', 'group', 'batch']),
    name: z.string().nullable(),
    state: z.enum(['running', 'completed', 'failed', 'cancelled']),
    created_at: z.string(),
    metadata: jsonObject,
  })
  .openapi('Workflow');
export const WorkflowResponse = z
  .looseObject({ workflow: Workflow, id: z.string(), type: z.string(), name: z.string().nullable(), state: z.string(), metadata: jsonObject })
  .openapi('WorkflowResponse');

const Event = z
  .object({
    specversion: z.literal('1.0'),
    id: z.string(),
    type: z.string(),
    source: z.string(),
    time: z.string(),
    subject: z.string(),
    datacontenttype: z.literal('application/json'),
    data: jsonObject,
  })
  .openapi('Event');
export const EventPollResponse = z.object({ events: z.array(Event), cursor: z.string().nullable(), has_more: z.boolean() }).openapi('EventPollResponse');

export const Manifest = z
  .looseObject({
    specversion: z.literal('1.0'),
    ojs_version: z.literal('1.0'),
    implementation: jsonObject,
    conformance_level: z.number().int(),
    conformance_tier: z.string(),
    protocols: z.array(z.string()),
    backend: z.string(),
    capabilities: z.record(z.string(), z.boolean()),
    extensions: z.unknown(),
  })
  .openapi('Manifest');
export const HealthResponse = z
  .looseObject({ status: z.enum(['ok', 'degraded', 'unhealthy']), version: z.string().optional(), uptime_seconds: z.number().optional(), backend: jsonObject })
  .openapi('HealthResponse');

export const AdminQueue = z
  .looseObject({ name: z.string(), state: z.enum(['active', 'paused']), paused: z.boolean(), counts: StateCounts })
  .openapi('AdminQueue');
export const AdminQueueListResponse = z.object({ items: z.array(AdminQueue), pagination: AdminPagination }).openapi('AdminQueueListResponse');
export const AdminJobListResponse = z.object({ items: z.array(Job), pagination: AdminPagination }).openapi('AdminJobListResponse');
export const AdminStatsResponse = z
  .looseObject({
    queues: z.number().int(),
    jobs: StateCounts,
    uptime_seconds: z.number(),
  })
  .openapi('AdminStatsResponse');
export const JobHistoryEntry = z
  .object({
    at: z.string(),
    from: z.enum(JOB_STATES).nullable(),
    to: z.enum(JOB_STATES),
    trigger: z.string().openapi({
      description:
        'What moved the job: push, timer, activate, fetch, expiry, ack, fail, requeue, visibility_timeout, cancel, dead_letter_retry, unique_replace.',
    }),
    attempt: z.number().int(),
    worker_id: z.string().optional(),
    reason: z
      .string()
      .optional()
      .openapi({ description: 'Error type of a failure or reclaim; source of a cancel (client, workflow_cancelled, cron_overlap).' }),
  })
  .openapi('JobHistoryEntry');
export const JobHistoryResponse = z.object({ job_id: z.string(), history: z.array(JobHistoryEntry), dropped: z.number().int() }).openapi('JobHistoryResponse');
export const OverdueJob = z
  .object({
    job_id: z.string(),
    type: z.string(),
    queue: z.string(),
    attempt: z.number().int(),
    worker_id: z.string().optional(),
    started_at: z.string().optional(),
    reason: z.enum(['visibility_timeout', 'timeout', 'worker_death']).openapi({ description: 'The error the rescuer records when it moves the job.' }),
    deadline: z.string().openapi({ description: 'The deadline that passed (for `worker_death`: last heartbeat + the worker death time).' }),
    overdue_ms: z.number().int(),
  })
  .openapi('OverdueJob');
export const AdminOverdueResponse = z
  .object({ jobs: z.array(OverdueJob), count: z.number().int(), truncated: z.boolean(), checked_at: z.string() })
  .openapi('AdminOverdueResponse');
export const AdminQueuePauseResponse = z
  .looseObject({ name: z.string(), paused: z.boolean(), paused_at: z.string().optional(), resumed_at: z.string().optional() })
  .openapi('AdminQueuePauseResponse');
