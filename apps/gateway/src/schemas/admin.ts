/**
 * OpenAPI schemas of the admin-api, bulk-operations and backpressure routes: queries, bodies and responses.
 * As elsewhere, the engine validates every field; these describe and check only what the router reads.
 */
import { z } from '@hono/zod-openapi';
import { JOB_STATES } from '@ojskit/core';
import { AdminPageQuery } from './inputs.js';
import { EnqueueBody } from './bodies.js';
import { ErrorEnvelope, Job } from './responses.js';

const AdminPagination = z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() });
const counts = Object.fromEntries(JOB_STATES.map((state) => [state, z.number().int()])) as Record<(typeof JOB_STATES)[number], z.ZodNumber>;
const ErrorObject = ErrorEnvelope.shape.error;

export const WorkerIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(255)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Worker id (as the worker sends it in heartbeats).', example: 'worker-1' }),
});

export const AdminJobQuery = AdminPageQuery.extend({
  queue: z.string().optional().openapi({ description: 'Only jobs of this queue.' }),
  state: z
    .string()
    .optional()
    .openapi({ description: `Only jobs in this state (${JOB_STATES.join(', ')}).` }),
  type: z.string().optional().openapi({ description: 'Only jobs of this type.' }),
  since: z.string().optional().openapi({ description: 'Only jobs created at or after this RFC 3339 time.' }),
  until: z.string().optional().openapi({ description: 'Only jobs created at or before this RFC 3339 time.' }),
  sort: z.string().optional().openapi({ description: 'Only `created_at` (the default).' }),
  order: z.string().optional().openapi({ description: 'Only `desc` (newest first, the default).' }),
});

const JobFilter = z
  .looseObject({
    queue: z.string().optional(),
    state: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .openapi({ description: 'A state or a list; each action has a default (see the route).' }),
    type: z.string().optional(),
    since: z.string().optional().openapi({ description: 'Created at or after (RFC 3339).' }),
    until: z.string().optional().openapi({ description: 'Created at or before (RFC 3339).' }),
  })
  .openapi('JobFilter');

export const AdminBulkBody = z.looseObject({ filter: JobFilter.optional(), confirm: z.literal(true) }).openapi('AdminBulkRequest');

export const BulkEnqueueBody = z
  .looseObject({
    jobs: z.array(EnqueueBody).min(1),
    atomicity: z.enum(['partial', 'atomic']).optional().openapi({ description: '`partial` (default): each item on its own. `atomic`: all or nothing.' }),
  })
  .openapi('BulkEnqueueRequest');

export const BulkJobsBody = z
  .looseObject({
    job_ids: z.array(z.string()).min(1).optional(),
    filter: JobFilter.optional(),
    confirm: z.literal(true).optional().openapi({ description: 'Required with `filter`.' }),
    atomicity: z.literal('partial').optional(),
  })
  .openapi('BulkJobsRequest');

export const QueueConfigBody = z
  .looseObject({
    backpressure: z
      .looseObject({
        max_depth: z
          .number()
          .int()
          .min(0)
          .nullable()
          .optional()
          .openapi({ description: 'Most jobs waiting (available, scheduled, retryable, pending); 0 or null: unbounded.' }),
        strategy: z.literal('reject').optional(),
        warning_threshold: z.number().min(0).max(1).optional(),
        retry_after_seconds: z.number().int().min(1).optional(),
      })
      .optional(),
    max_depth: z.number().int().min(0).nullable().optional().openapi({ description: 'Same as `backpressure.max_depth`.' }),
    concurrency: z.number().int().min(1).nullable().optional(),
    rate_limit: z
      .looseObject({
        max_per_second: z.number().optional().openapi({ description: 'At most one claim from the queue per 1000/n ms (positive).' }),
        concurrency: z.number().optional().openapi({ description: 'At most this many jobs of the queue active at once (integer ≥ 1).' }),
      })
      .nullable()
      .optional()
      .openapi({ description: "Queue-level rate limit, combined with each job's `options.rate_limit` (spec/rate-limits.md)." }),
    retention: z
      .object({
        completed_ms: z.number().int().min(0).optional(),
        discarded_ms: z.number().int().min(0).optional(),
        cancelled_ms: z.number().int().min(0).optional(),
      })
      .nullable()
      .optional(),
  })
  .openapi('QueueConfigRequest');

export const QueueConfigResponse = z
  .object({
    queue: z.string(),
    backpressure: z.object({
      max_depth: z.number().int().nullable(),
      strategy: z.literal('reject'),
      warning_threshold: z.number(),
      retry_after_seconds: z.number().int(),
    }),
    concurrency: z.number().int().nullable(),
    rate_limit: z.object({ max_per_second: z.number().nullable(), concurrency: z.number().int().nullable() }).nullable(),
    retention: z.object({ completed_ms: z.number().int().optional(), discarded_ms: z.number().int().optional(), cancelled_ms: z.number().int().optional() }),
    updated_at: z.string().nullable(),
  })
  .openapi('QueueConfig');

export const QueueRateLimitsResponse = z
  .object({
    queue: z.string(),
    now: z.string().openapi({ description: "The store's clock when it answered: spacing is measured with it." }),
    queue_limit: z.object({ max_per_second: z.number().nullable(), concurrency: z.number().int().nullable() }),
    window: z.object({
      last_claim_at: z.string().nullable(),
      interval_ms: z.number().nullable(),
      next_allowed_at: z.string().nullable().openapi({ description: 'Earliest time of the next limited claim from the queue.' }),
    }),
    active: z.number().int(),
    keys: z.array(z.object({ key: z.string(), active: z.number().int(), concurrency: z.number().int().nullable() })),
  })
  .openapi('QueueRateLimits');

const WorkerSummary = z
  .object({ total: z.number().int(), running: z.number().int(), quiet: z.number().int(), terminate: z.number().int(), stale: z.number().int() })
  .openapi('WorkerSummary');

export const AdminWorker = z
  .looseObject({
    id: z.string(),
    state: z.string(),
    directive: z.enum(['running', 'quiet', 'terminate']),
    active_jobs: z.number().int(),
    active_job_ids: z.array(z.string()),
    last_heartbeat_at: z.string(),
    stale: z.boolean(),
    hostname: z.string().optional(),
    pid: z.number().int().optional(),
    queues: z.array(z.string()).optional(),
    concurrency: z.number().int().optional(),
  })
  .openapi('AdminWorker');

export const AdminWorkerListResponse = z
  .object({ items: z.array(AdminWorker), summary: WorkerSummary, pagination: AdminPagination })
  .openapi('AdminWorkerListResponse');

export const WorkerDirectiveResponse = z
  .object({ worker_id: z.string(), state: z.enum(['running', 'quiet', 'terminate']), directive: z.enum(['running', 'quiet', 'terminate']) })
  .openapi('WorkerDirectiveResponse');

export const AdminStatsResponse = z
  .looseObject({
    queues: z.number().int(),
    workers: z.number().int().openapi({ description: 'Live (not stale) workers.' }),
    worker_summary: WorkerSummary,
    jobs: z.object(counts),
    throughput: z.object({ processed_per_minute: z.number(), failed_per_minute: z.number() }).optional(),
    uptime_seconds: z.number(),
  })
  .openapi('AdminStats');

export const AdminBulkResponse = z
  .looseObject({
    action: z.enum(['cancel', 'retry', 'delete']),
    matched: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    errors: z.array(z.object({ job_id: z.string(), error: z.string() })).optional(),
  })
  .openapi('AdminBulkResponse');

export const BulkEnqueueResponse = z
  .object({
    atomicity: z.enum(['partial', 'atomic']),
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    items: z.array(
      z.union([
        z.object({ index: z.number().int(), status: z.enum(['created', 'duplicate']), job: Job }),
        z.object({ index: z.number().int(), status: z.literal('failed'), error: ErrorObject }),
      ]),
    ),
  })
  .openapi('BulkEnqueueResponse');

export const BulkJobsResponse = z
  .object({
    action: z.enum(['cancel', 'retry', 'delete']),
    atomicity: z.literal('partial'),
    total_matched: z.number().int(),
    succeeded: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    items: z.array(
      z.object({
        index: z.number().int(),
        job_id: z.string(),
        status: z.enum(['cancelled', 'retried', 'deleted', 'skipped', 'failed']),
        reason: z.string().optional(),
        error: ErrorObject.optional(),
      }),
    ),
  })
  .openapi('BulkJobsResponse');
