/**
 * Request bodies as the OpenAPI document describes them. The gateway itself checks only that a body is a
 * JSON object (`http/body.ts`); every field is validated by the engine, so an in-process caller and an HTTP
 * caller get the same OJS errors. Where core publishes a request schema (enqueue, worker operations) the routes use it
 * directly; the rest are declared here.
 */
import { z } from '@hono/zod-openapi';
import { CRON_OVERLAP_POLICIES, EnqueueOptionsSchema, EnqueueRequestSchema } from '@ojskit/core/schemas';

const jsonObject = z.record(z.string(), z.unknown());
/** Options carried by cron templates and workflows: the enqueue options, closed (envelope.md E16). */
const options = EnqueueOptionsSchema;

export const BatchEnqueueBody = z
  .looseObject({ jobs: z.array(EnqueueRequestSchema).min(1).openapi({ description: 'Enqueue requests; all stored or none.' }) })
  .openapi('BatchEnqueueRequest');

export const WorkerProgressBody = z
  .looseObject({
    job_id: z.string(),
    percentage: z.number().min(0).max(100).optional(),
    message: z.string().optional(),
    data: jsonObject.optional(),
  })
  .openapi('WorkerProgressRequest');

const JobTemplate = z.looseObject({
  type: z.string(),
  args: z.array(z.unknown()).optional(),
  meta: jsonObject.optional(),
  options: options.optional(),
});

export const CronRegisterBody = z
  .looseObject({
    name: z.string().min(1),
    expression: z.string().optional().openapi({ description: 'Cron expression (template form); `cron` in the flat form.' }),
    cron: z.string().optional(),
    // null: the default, as if absent.
    timezone: z.string().nullish(),
    overlap_policy: z.enum(CRON_OVERLAP_POLICIES).nullish(),
    enabled: z.boolean().nullish(),
    description: z.string().optional(),
    job_template: JobTemplate.optional(),
    type: z.string().optional(),
    args: z.array(z.unknown()).optional(),
    meta: jsonObject.optional(),
    options: options.optional(),
  })
  .refine((body) => body.expression != null || body.cron != null, { message: 'A cron needs "expression" (or "cron").', path: ['expression'] })
  .openapi('CronRegisterRequest');

export const CronPatchBody = z.looseObject({ enabled: z.boolean() }).openapi('CronPatchRequest');

const WorkflowItem = z.looseObject({
  type: z.string(),
  args: z.array(z.unknown()).optional(),
  meta: jsonObject.optional(),
  name: z.string().optional(),
  options: options.optional(),
});

export const WorkflowBody = z
  .looseObject({
    type: z.enum(['chain', 'group', 'batch']),
    name: z.string().nullish(),
    options: options.optional(),
    steps: z.array(WorkflowItem).min(1).optional().openapi({ description: 'Chain steps.' }),
    jobs: z.array(WorkflowItem).min(1).optional().openapi({ description: 'Group/batch members.' }),
    callbacks: z.looseObject({ on_complete: WorkflowItem.optional(), on_success: WorkflowItem.optional(), on_failure: WorkflowItem.optional() }).optional(),
  })
  .refine((body) => (body.steps === undefined) !== (body.jobs === undefined), {
    message: 'Give "steps" or "jobs" (either, for any type), not both.',
    path: ['jobs'],
  })
  .openapi('WorkflowRequest');

export const BulkActionBody = z
  .looseObject({
    filter: z
      .looseObject({ queue: z.string().optional(), type: z.string().optional(), since: z.string().optional(), error_type: z.string().optional() })
      .optional(),
    confirm: z.literal(true),
  })
  .openapi('BulkActionRequest');

/** No field is read: `override` (which the protocol allows) is refused with `422 unsupported`. */
export const DeadLetterRetryBody = z.looseObject({}).openapi('DeadLetterRetryRequest');
