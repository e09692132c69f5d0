/** Response bodies of the worker operations: FETCH, ACK (single and batched), FAIL, BEAT and progress. */
import { z } from 'zod';
import { OjsErrorBodySchema } from '../../errors/ojs-error.js';
import { JOB_STATES } from '../../lifecycle/states.js';
import { JobSchema } from '../job.js';

/** `job` repeats the first of `jobs`, for clients that fetch one. */
export const FetchResponseSchema = z.object({ jobs: z.array(JobSchema), job: JobSchema.optional() }).meta({ id: 'FetchResponse' });
export type FetchResponse = z.output<typeof FetchResponseSchema>;

export const AckResponseSchema = z
  .object({ acknowledged: z.literal(true), id: z.string(), job_id: z.string(), state: z.literal('completed'), completed_at: z.string(), job: JobSchema })
  .meta({ id: 'AckResponse' });
export type AckResponse = z.output<typeof AckResponseSchema>;

/** One outcome of a batched ACK (ojskit extension, `POST /ojs/v1/workers/ack/batch`), in request order. */
export const AckManyResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), job_id: z.string(), state: z.literal('completed') }),
  z.object({ ok: z.literal(false), job_id: z.string(), error: OjsErrorBodySchema }),
]);
export type AckManyResult = z.output<typeof AckManyResultSchema>;

/** A batched ACK's response: each job succeeds or fails on its own. */
export const AckManyResponseSchema = z.object({ results: z.array(AckManyResultSchema) }).meta({ id: 'AckBatchResponse' });
export type AckManyResponse = z.output<typeof AckManyResponseSchema>;

export const NackResponseSchema = z
  .object({
    id: z.string(),
    job_id: z.string(),
    state: z.enum(JOB_STATES),
    attempt: z.number().int(),
    max_attempts: z.number().int(),
    job: JobSchema,
    next_attempt_at: z.string().optional(),
    retry_delay_ms: z.number().int().optional(),
    discarded_at: z.string().optional(),
    completed_at: z.string().optional(),
    dead_lettered: z.boolean().optional(),
  })
  .meta({ id: 'NackResponse' });
export type NackResponse = z.output<typeof NackResponseSchema>;

/** What a worker is told to do: keep running, stop fetching, or finish and exit. */
export const WorkerDirectiveSchema = z.enum(['running', 'quiet', 'terminate']);
export type WorkerDirective = z.output<typeof WorkerDirectiveSchema>;

export const HeartbeatResponseSchema = z
  .object({
    state: WorkerDirectiveSchema,
    directive: WorkerDirectiveSchema,
    jobs_extended: z.array(z.string()),
    server_time: z.string(),
    jobs_cancelled: z.array(z.string()).optional(),
  })
  .meta({ id: 'HeartbeatResponse' });
export type HeartbeatResponse = z.output<typeof HeartbeatResponseSchema>;

/** A job's progress; `null` fields until the job first reports. */
export const ProgressResponseSchema = z
  .object({
    job_id: z.string(),
    state: z.enum(JOB_STATES),
    progress: z.number().nullable(),
    message: z.string().nullable(),
    data: z.unknown(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'ProgressResponse' });
export type ProgressResponse = z.output<typeof ProgressResponseSchema>;
