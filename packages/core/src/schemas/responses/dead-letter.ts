/** Response bodies of the dead-letter extension (the list and single-job answers are `JobListResponse`/`JobResponse`). */
import { z } from 'zod';

export const DeadLetterDeleteResponseSchema = z.object({ deleted: z.literal(true), job_id: z.string() }).meta({ id: 'DeadLetterDeleteResponse' });
export type DeadLetterDeleteResponse = z.output<typeof DeadLetterDeleteResponseSchema>;

/** Jobs a bulk action could not act on, with why. */
const BulkActionErrorsSchema = z.array(z.object({ job_id: z.string(), error: z.string() }));

/** The dead-letter bulk retry (`POST /ojs/v1/dead-letter/retry`). */
export const BulkActionResponseSchema = z
  .object({ action: z.string(), matched: z.number().int(), succeeded: z.number().int(), failed: z.number().int(), errors: BulkActionErrorsSchema.optional() })
  .meta({ id: 'BulkActionResponse' });
export type BulkActionResponse = z.output<typeof BulkActionResponseSchema>;

/** Admin bulk action by filter (`POST /ojs/v1/admin/jobs/bulk/<action>`), as the protocol's DLQ bulk retry. */
export const AdminBulkResponseSchema = z
  .object({
    action: z.enum(['cancel', 'retry', 'delete']),
    matched: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    errors: BulkActionErrorsSchema.optional(),
  })
  .meta({ id: 'AdminBulkResponse' });
export type AdminBulkResponse = z.output<typeof AdminBulkResponseSchema>;

export const DeadLetterStatsResponseSchema = z
  .object({
    total: z.number().int(),
    by_queue: z.record(z.string(), z.number().int()),
    by_error_type: z.record(z.string(), z.number().int()),
    oldest_at: z.string().nullable(),
    newest_at: z.string().nullable(),
  })
  .meta({ id: 'DeadLetterStatsResponse' });
export type DeadLetterStatsResponse = z.output<typeof DeadLetterStatsResponseSchema>;
