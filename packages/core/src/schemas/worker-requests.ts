/** Request bodies of the worker operations (FETCH, ACK, FAIL, BEAT, progress): schemas and parsers. */
import { z } from 'zod';
import { OjsError } from '../errors/ojs-error.js';
import { checkPositiveInt, checkQueue, checkTimeoutMs, checkStringArray, invalidField, isPlainObject, requireObject } from './fields.js';
import { isQueueName } from './patterns.js';

/** Longest long-poll a FETCH may ask for. */
export const MAX_FETCH_WAIT_MS = 2_000;

export const FetchRequestSchema = z
  .looseObject({
    queues: z.array(z.string()).min(1),
    count: z.number().int().min(1).optional(),
    worker_id: z.string().min(1).optional(),
    visibility_timeout_ms: z.number().int().positive().optional(),
    wait_ms: z.number().int().min(0).optional().describe(`a longer wait is cut to ${MAX_FETCH_WAIT_MS} ms`),
  })
  .meta({ id: 'FetchRequest' });

/**
 * `null` on an optional field of a worker's answer (ACK, FAIL, BEAT, progress) means the field is absent: the
 * protocol tolerates null as absent (envelope.md), and workers of other SDKs send `"worker_id": null`. The
 * requests a producer or a fetching worker sends (enqueue, FETCH) refuse null: a field there is a value or absent.
 */
export const AckRequestSchema = z
  .looseObject({
    job_id: z.string().min(1),
    result: z.unknown().optional(),
    worker_id: z.string().nullish(),
    attempt: z.number().int().min(1).nullish(),
  })
  .meta({ id: 'AckRequest' });

export const AckBatchRequestSchema = z
  .looseObject({ acks: z.array(AckRequestSchema).min(1) })
  .meta({ id: 'AckBatchRequest', description: 'ojskit extension: many ACKs in one request, each succeeding or failing on its own.' });

/** One ACK of a batch, as a client writes it. */
export type AckManyItem = z.input<typeof AckRequestSchema>;

export const FailErrorInputSchema = z.looseObject({
  code: z.string().optional(),
  message: z.string().optional(),
  type: z.string().optional(),
  retryable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  backtrace: z.unknown().optional(),
});

export const NackRequestSchema = z
  .looseObject({
    job_id: z.string().min(1),
    error: FailErrorInputSchema.nullish(),
    requeue: z.boolean().optional(),
    worker_id: z.string().nullish(),
    attempt: z.number().int().min(1).nullish(),
  })
  .meta({ id: 'NackRequest' });

/** A BEAT field that is kept when of `type` and ignored otherwise. */
const informational = (type: 'string' | 'integer' | 'object') =>
  z
    .unknown()
    .optional()
    .meta({
      type,
      description: `Informational: kept when ${type === 'integer' ? 'an integer' : `a${type === 'object' ? 'n' : ''} ${type}`}, ignored otherwise.`,
    });

export const HeartbeatRequestSchema = z
  .looseObject({
    worker_id: z.string().min(1),
    active_jobs: z.union([z.array(z.string()), z.number().min(0)]).optional(),
    active_job_ids: z.array(z.string()).optional(),
    job_id: z.string().optional(),
    visibility_timeout_ms: z.number().int().positive().optional(),
    // What a worker says about itself is informational: kept when well typed, otherwise ignored (never refused).
    // `z.unknown()` validates that; the metadata documents the expected type (OpenAPI and JSON Schema read it).
    state: informational('string'),
    hostname: informational('string'),
    pid: informational('integer'),
    queues: z.array(z.string()).optional(),
    concurrency: informational('integer'),
    labels: informational('object'),
  })
  .meta({ id: 'HeartbeatRequest' });

export const ProgressRequestSchema = z
  .looseObject({
    progress: z.number().nullish(),
    message: z.string().nullish(),
    data: z.record(z.string(), z.unknown()).nullish(),
    checkpoint: z.record(z.string(), z.unknown()).nullish(),
  })
  .refine((body) => body.progress != null || body.message != null || body.data != null, {
    message: 'A progress update needs at least one of progress, message or data.',
    path: ['progress'],
  })
  .meta({ id: 'ProgressRequest' });

export interface FetchRequest {
  queues: string[];
  count: number;
  workerId?: string;
  visibilityMs?: number;
  waitMs: number;
}

/** Parses a FETCH body; `count` is clamped to `maxCount`. */
export function parseFetchRequest(input: unknown, maxCount: number): FetchRequest {
  const body = requireObject(input);
  if (!Array.isArray(body.queues) || body.queues.length === 0) invalidField('queues', 'a non-empty array of queue names', body.queues);
  const names = body.queues as unknown[];
  // The field name is built only for an error message.
  for (let i = 0; i < names.length; i++) if (!isQueueName(names[i])) checkQueue(names[i], `queues[${i}]`);
  // Duplicates dropped, first kept; most workers name one queue.
  const queues = names.length === 1 ? [names[0] as string] : [...new Set(names as string[])];
  const count = body.count === undefined ? 1 : checkPositiveInt(body.count, 'count');
  if (body.worker_id !== undefined && (typeof body.worker_id !== 'string' || body.worker_id === ''))
    invalidField('worker_id', 'a non-empty string', body.worker_id);
  const visibilityMs = body.visibility_timeout_ms === undefined ? undefined : checkTimeoutMs(body.visibility_timeout_ms, 'visibility_timeout_ms');
  let waitMs = 0;
  if (body.wait_ms !== undefined) {
    if (typeof body.wait_ms !== 'number' || !Number.isInteger(body.wait_ms) || body.wait_ms < 0)
      invalidField('wait_ms', 'a non-negative integer', body.wait_ms);
    waitMs = Math.min(body.wait_ms, MAX_FETCH_WAIT_MS);
  }
  const request: FetchRequest = { queues, count: Math.min(count, maxCount), waitMs };
  if (typeof body.worker_id === 'string') request.workerId = body.worker_id;
  if (visibilityMs !== undefined) request.visibilityMs = visibilityMs;
  return request;
}

/** The `job_id` of ACK/FAIL/progress bodies. */
export function parseJobIdField(body: Record<string, unknown>, field = 'job_id'): string {
  const id = body[field];
  if (typeof id !== 'string' || id.length === 0) invalidField(field, 'a job id string', id);
  return id;
}

/**
 * The attempt an ACK/FAIL speaks for (ojskit extension): when given, the job must still be on that attempt,
 * so a late answer from a lost reservation cannot settle a newer attempt held by the same worker.
 */
export function parseOptionalAttempt(body: Record<string, unknown>): number | undefined {
  if (body.attempt === undefined || body.attempt === null) return undefined;
  if (typeof body.attempt !== 'number' || !Number.isSafeInteger(body.attempt) || body.attempt < 1) invalidField('attempt', 'a positive integer', body.attempt);
  return body.attempt;
}

export function parseOptionalWorkerId(body: Record<string, unknown>): string | undefined {
  if (body.worker_id === undefined || body.worker_id === null) return undefined;
  if (typeof body.worker_id !== 'string') invalidField('worker_id', 'a string', body.worker_id);
  return body.worker_id;
}

export interface AckRequest {
  jobId: string;
  result?: unknown;
  hasResult: boolean;
  workerId?: string;
  attempt?: number;
}

export function parseAckRequest(input: unknown): AckRequest {
  const body = requireObject(input);
  const jobId = parseJobIdField(body);
  const workerId = parseOptionalWorkerId(body);
  const attempt = parseOptionalAttempt(body);
  const request: AckRequest = { jobId, hasResult: body.result !== undefined, result: body.result };
  if (workerId) request.workerId = workerId;
  if (attempt !== undefined) request.attempt = attempt;
  return request;
}

export function parseAckBatchRequest(input: unknown): AckRequest[] {
  const body = requireObject(input, 'body', true);
  if (!Array.isArray(body.acks) || body.acks.length === 0) invalidField('acks', 'a non-empty array of ack requests', body.acks);
  return (body.acks as unknown[]).map((a, i) => {
    try {
      return parseAckRequest(a);
    } catch (err) {
      if (err instanceof OjsError) throw OjsError.invalidRequest(`acks[${i}]: ${err.message}`, { ...err.details, index: i });
      throw err;
    }
  });
}

/** The `error` object of a FAIL request. */
export interface FailErrorInput {
  code?: string;
  message?: string;
  type?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  backtrace?: unknown;
  [extra: string]: unknown;
}

export interface NackRequest {
  jobId: string;
  error: FailErrorInput;
  requeue: boolean;
  workerId?: string;
  attempt?: number;
}

export function parseNackRequest(input: unknown): NackRequest {
  const body = requireObject(input);
  const jobId = parseJobIdField(body);
  const workerId = parseOptionalWorkerId(body);
  let error: FailErrorInput = {};
  if (body.error !== undefined && body.error !== null) {
    if (!isPlainObject(body.error)) invalidField('error', 'an object', body.error);
    error = body.error as FailErrorInput;
    for (const key of ['code', 'message', 'type'] as const) {
      if (error[key] !== undefined && typeof error[key] !== 'string') invalidField(`error.${key}`, 'a string', error[key]);
    }
    if (error.retryable !== undefined && typeof error.retryable !== 'boolean') invalidField('error.retryable', 'a boolean', error.retryable);
    if (error.details !== undefined && !isPlainObject(error.details)) invalidField('error.details', 'an object', error.details);
  }
  if (body.requeue !== undefined && typeof body.requeue !== 'boolean') invalidField('requeue', 'a boolean', body.requeue);
  const attempt = parseOptionalAttempt(body);
  return { jobId, error, requeue: body.requeue === true, ...(workerId ? { workerId } : {}), ...(attempt !== undefined ? { attempt } : {}) };
}

export interface HeartbeatRequest {
  workerId: string;
  jobIds: string[];
  visibilityMs?: number;
  state?: string;
  hostname?: string;
  pid?: number;
  queues?: string[];
  concurrency?: number;
  labels?: Record<string, unknown>;
}

export function parseHeartbeatRequest(input: unknown): HeartbeatRequest {
  const body = requireObject(input);
  if (typeof body.worker_id !== 'string' || body.worker_id === '') invalidField('worker_id', 'a non-empty string', body.worker_id);
  const ids = new Set<string>();
  if (body.active_job_ids !== undefined) for (const id of checkStringArray(body.active_job_ids, 'active_job_ids')) ids.add(id);
  if (Array.isArray(body.active_jobs)) for (const id of checkStringArray(body.active_jobs, 'active_jobs')) ids.add(id);
  else if (body.active_jobs !== undefined && (typeof body.active_jobs !== 'number' || body.active_jobs < 0)) {
    invalidField('active_jobs', 'an array of job ids or a count', body.active_jobs);
  }
  if (body.job_id !== undefined) {
    if (typeof body.job_id !== 'string') invalidField('job_id', 'a string', body.job_id);
    ids.add(body.job_id);
  }
  const visibilityMs = body.visibility_timeout_ms === undefined ? undefined : checkTimeoutMs(body.visibility_timeout_ms, 'visibility_timeout_ms');
  const out: HeartbeatRequest = { workerId: body.worker_id, jobIds: [...ids] };
  if (visibilityMs !== undefined) out.visibilityMs = visibilityMs;
  if (typeof body.state === 'string') out.state = body.state;
  if (typeof body.hostname === 'string') out.hostname = body.hostname;
  if (typeof body.pid === 'number') out.pid = body.pid;
  if (body.queues !== undefined) out.queues = checkStringArray(body.queues, 'queues');
  if (typeof body.concurrency === 'number') out.concurrency = body.concurrency;
  if (isPlainObject(body.labels)) out.labels = body.labels;
  return out;
}

export interface ProgressRequest {
  progress?: number;
  message?: string;
  data?: Record<string, unknown>;
}

/** At least one of progress/message/data; progress is clamped into [0, 1], never rejected. */
export function parseProgressRequest(input: unknown): ProgressRequest {
  const body = requireObject(input);
  const out: ProgressRequest = {};
  if (body.progress !== undefined && body.progress !== null) {
    if (typeof body.progress !== 'number' || Number.isNaN(body.progress)) invalidField('progress', 'a number from 0.0 to 1.0', body.progress);
    out.progress = Math.min(1, Math.max(0, body.progress));
  }
  if (body.message !== undefined && body.message !== null) {
    if (typeof body.message !== 'string') invalidField('message', 'a string', body.message);
    out.message = body.message;
  }
  if (body.data !== undefined && body.data !== null) {
    if (!isPlainObject(body.data)) invalidField('data', 'an object', body.data);
    out.data = body.data;
  }
  // Not stored (yet), but a checkpoint that is not an object is a client bug worth telling.
  if (body.checkpoint !== undefined && body.checkpoint !== null && !isPlainObject(body.checkpoint)) invalidField('checkpoint', 'an object', body.checkpoint);
  if (out.progress === undefined && out.message === undefined && out.data === undefined) {
    throw OjsError.invalidRequest('A progress update needs at least one of progress, message or data.', { field: 'progress' });
  }
  return out;
}
