/**
 * OpenAPI schemas of the admin-api, bulk-operations and backpressure routes: queries and bodies (the responses
 * are core's, in `@ojskit/core/schemas`). As elsewhere, the engine validates every field; these describe and
 * check only what the router reads.
 */
import { AgeBoostInputSchema, EnqueueRequestSchema } from '@ojskit/core/schemas';
import { z } from '@hono/zod-openapi';
import { JOB_STATES } from '@ojskit/core';
import { AdminPageQuery } from './inputs.js';

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
    jobs: z.array(EnqueueRequestSchema).min(1),
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
  .refine((body) => (body.job_ids === undefined) !== (body.filter === undefined), { message: 'Give either "job_ids" or "filter", not both.' })
  .refine((body) => body.filter === undefined || body.confirm === true, { message: 'A filter needs "confirm": true.', path: ['confirm'] })
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
      .strictObject({
        max_per_second: z.number().optional().openapi({ description: 'At most one claim from the queue per 1000/n ms (positive).' }),
        concurrency: z.number().optional().openapi({ description: 'At most this many jobs of the queue active at once (integer ≥ 1).' }),
      })
      .nullable()
      .optional()
      .openapi({ description: "Queue-level rate limit, combined with each job's `options.rate_limit` (spec/rate-limits.md)." }),
    retention: z
      .strictObject({
        completed_ms: z.number().int().min(0).optional(),
        discarded_ms: z.number().int().min(0).optional(),
        cancelled_ms: z.number().int().min(0).optional(),
      })
      .nullable()
      .optional(),
    // core's schema: the one source of what the engine accepts (priority/age-boost-input.ts)
    age_boost: AgeBoostInputSchema.optional(),
    history: z.boolean().nullable().optional().openapi({
      description:
        'false: the queue opts out of job history (spec/history.md H9): transitions of its jobs write no line from now on, and GET /jobs/{id}/history answers the lines written before with recording: false. true, null or absent: recorded.',
    }),
  })
  .openapi('QueueConfigRequest');
