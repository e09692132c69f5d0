/** Response bodies of the cron operations: a cron as served (`D` in the protocol) and its wrappers. */
import { z } from 'zod';
import { PaginationSchema } from './common.js';

/** The job a cron enqueues. */
const CronJobTemplateSchema = z.object({
  type: z.string(),
  args: z.array(z.unknown()),
  meta: z.record(z.string(), z.unknown()).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
});

/** A cron as served, in both the template form (`expression`, `job_template`) and the flat one (`cron`, `type`, `args`). */
export const CronDescriptionSchema = z
  .object({
    name: z.string(),
    expression: z.string(),
    cron: z.string(),
    timezone: z.string(),
    overlap_policy: z.string(),
    enabled: z.boolean(),
    status: z.enum(['active', 'disabled']),
    job_template: CronJobTemplateSchema,
    type: z.string(),
    args: z.array(z.unknown()),
    options: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    created_at: z.string(),
    next_run_at: z.string().nullable(),
    last_run_at: z.string().nullable(),
    run_count: z.number().int(),
  })
  .meta({ id: 'Cron' });
export type CronDescription = z.output<typeof CronDescriptionSchema>;

export const CronResponseSchema = z.object({ cron: CronDescriptionSchema, cron_job: CronDescriptionSchema }).meta({ id: 'CronResponse' });
export type CronResponse = z.output<typeof CronResponseSchema>;

/** What the engine answers a registration; `created` becomes the HTTP status (201 or 200), not a body field. */
export type CronRegisterResponse = CronResponse & {
  /** True when a new cron was created (HTTP 201), false when one was replaced (200). */
  created: boolean;
};

export const CronListResponseSchema = z
  .object({ crons: z.array(CronDescriptionSchema), cron_jobs: z.array(CronDescriptionSchema), count: z.number().int(), pagination: PaginationSchema })
  .meta({ id: 'CronListResponse' });
export type CronListResponse = z.output<typeof CronListResponseSchema>;

export const CronDeleteResponseSchema = z
  .object({ cron: CronDescriptionSchema, deleted: z.literal(true), name: z.string() })
  .meta({ id: 'CronDeleteResponse' });
export type CronDeleteResponse = z.output<typeof CronDeleteResponseSchema>;
