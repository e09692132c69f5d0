/** Response bodies of the bulk-operations extension: bulk enqueue and bulk cancel, retry or delete, item by item. */
import { z } from 'zod';
import { OjsErrorBodySchema } from '../../errors/ojs-error.js';
import { JobSchema } from '../job.js';

/** One item of a bulk enqueue (`POST /ojs/v1/jobs/bulk`). */
export const BulkEnqueueItemSchema = z.union([
  z.object({ index: z.number().int(), status: z.enum(['created', 'duplicate']), job: JobSchema }),
  z.object({ index: z.number().int(), status: z.literal('failed'), error: OjsErrorBodySchema }),
]);
export type BulkEnqueueItem = z.output<typeof BulkEnqueueItemSchema>;

export const BulkEnqueueResponseSchema = z
  .object({
    atomicity: z.enum(['partial', 'atomic']),
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    items: z.array(BulkEnqueueItemSchema),
  })
  .meta({ id: 'BulkEnqueueResponse' });
export type BulkEnqueueResponse = z.output<typeof BulkEnqueueResponseSchema>;

/** One job of a bulk cancel, retry or delete (`POST /ojs/v1/jobs/bulk/<action>`). */
export const BulkJobItemSchema = z.object({
  index: z.number().int(),
  job_id: z.string(),
  status: z.enum(['cancelled', 'retried', 'deleted', 'skipped', 'failed']),
  reason: z.string().optional().describe('Why a job was skipped or failed.'),
  error: OjsErrorBodySchema.optional(),
});
export type BulkJobItem = z.output<typeof BulkJobItemSchema>;

export const BulkJobResponseSchema = z
  .object({
    action: z.enum(['cancel', 'retry', 'delete']),
    atomicity: z.literal('partial'),
    total_matched: z.number().int(),
    succeeded: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    items: z.array(BulkJobItemSchema),
  })
  .meta({ id: 'BulkJobsResponse' });
export type BulkJobResponse = z.output<typeof BulkJobResponseSchema>;
