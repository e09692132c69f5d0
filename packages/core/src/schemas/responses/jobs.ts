/** Response bodies of the job operations: enqueue (single, batch), get, cancel, activate, lists of jobs. */
import { z } from 'zod';
import { JobSchema } from '../job.js';
import { PaginationSchema } from './common.js';

/** A queue near its bound, reported on an accepted enqueue (and as `X-OJS-Queue-*` headers over HTTP). */
export const QueuePressureSchema = z
  .object({ queue: z.string(), depth: z.number().int(), bound: z.number().int(), pressure: z.number().describe('depth / bound, 0..1.') })
  .meta({ id: 'QueuePressure' });
export type QueuePressure = z.output<typeof QueuePressureSchema>;

/** `{"job":…}`: get, cancel, activate, dead-letter get and retry. */
export const JobResponseSchema = z.object({ job: JobSchema }).meta({ id: 'JobResponse' });
export type JobResponse = z.output<typeof JobResponseSchema>;

export const EnqueueResponseSchema = z
  .object({
    job: JobSchema,
    deduplicated: z.literal(true).optional().describe('True when a unique policy with `ignore` matched an existing job (HTTP 200 instead of 201).'),
    // Backpressure: the job's queue is at or past its warning threshold. (A description here would inline QueuePressure.)
    queue_pressure: QueuePressureSchema.optional(),
  })
  .meta({ id: 'EnqueueResponse' });
export type EnqueueResponse = z.output<typeof EnqueueResponseSchema>;

export const BatchEnqueueResponseSchema = z
  .object({
    jobs: z.array(JobSchema),
    count: z.number().int(),
    // Backpressure: the most pressed queue of the batch at or past its warning threshold.
    queue_pressure: QueuePressureSchema.optional(),
  })
  .meta({ id: 'BatchEnqueueResponse' });
export type BatchEnqueueResponse = z.output<typeof BatchEnqueueResponseSchema>;

/** A page of jobs (dead-letter list). */
export const JobListResponseSchema = z.object({ jobs: z.array(JobSchema), pagination: PaginationSchema }).meta({ id: 'JobListResponse' });
export type JobListResponse = z.output<typeof JobListResponseSchema>;
