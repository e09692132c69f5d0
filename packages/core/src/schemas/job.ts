/** The job envelope as served on the wire (snake_case), with its zod schema for JSON Schema generation. */
import { z } from 'zod';
import { JOB_STATES } from '../lifecycle/states.js';
import { UUIDV7_PATTERN } from '../formats/ids.js';
import { JOB_TYPE_PATTERN, MAX_PRIORITY, MAX_QUEUE_LENGTH, MAX_TYPE_LENGTH, MIN_PRIORITY, QUEUE_NAME_PATTERN } from './patterns.js';

const timestamp = z.string().describe('RFC 3339 timestamp');

export const JobErrorSchema = z.looseObject({
  code: z.string(),
  type: z.string(),
  message: z.string(),
  retryable: z.boolean().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  backtrace: z.unknown().optional(),
  attempt: z.number().int().min(0),
  occurred_at: timestamp,
});
/** One entry of `errors` (and the `error` field): what a failure recorded. */
export type JobError = z.output<typeof JobErrorSchema>;

export const RetryPolicyWireSchema = z.object({
  max_attempts: z.number().int().min(0),
  initial_interval: z.string(),
  backoff_coefficient: z.number().min(1),
  max_interval: z.string(),
  jitter: z.boolean(),
  non_retryable_errors: z.array(z.string()),
  on_exhaustion: z.enum(['discard', 'dead_letter']),
  backoff_strategy: z.enum(['exponential', 'linear', 'constant', 'none', 'polynomial']),
});
/** The retry policy as echoed on a job (effective, merged with defaults). */
export type RetryPolicyWire = z.output<typeof RetryPolicyWireSchema>;

/** Schema of the job envelope in responses. */
export const JobSchema = z
  .looseObject({
    specversion: z.literal('1.0'),
    id: z.string().regex(UUIDV7_PATTERN),
    type: z.string().max(MAX_TYPE_LENGTH).regex(JOB_TYPE_PATTERN),
    queue: z.string().max(MAX_QUEUE_LENGTH).regex(QUEUE_NAME_PATTERN),
    args: z.array(z.unknown()),
    meta: z.record(z.string(), z.unknown()),
    priority: z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY),
    state: z.enum(JOB_STATES),
    attempt: z.number().int().min(0),
    max_attempts: z.number().int().min(0),
    created_at: timestamp,
    enqueued_at: timestamp.optional(),
    scheduled_at: timestamp.optional(),
    expires_at: timestamp.optional(),
    started_at: timestamp.optional(),
    completed_at: timestamp.optional(),
    discarded_at: timestamp.optional(),
    cancelled_at: timestamp.optional(),
    expired_at: timestamp.optional(),
    activated_at: timestamp.optional(),
    result: z.unknown().optional(),
    error: JobErrorSchema.optional(),
    errors: z.array(JobErrorSchema).optional(),
    retry_delay_ms: z.number().int().optional(),
    next_attempt_at: timestamp.optional(),
    retry: RetryPolicyWireSchema.optional(),
    unique: z.record(z.string(), z.unknown()).optional(),
    tags: z.array(z.string()).optional(),
    timeout_ms: z.number().int().optional(),
    timeout: z.number().optional(),
    visibility_timeout_ms: z.number().int().optional(),
    worker_id: z.string().optional(),
    parent_results: z.array(z.unknown()).optional(),
    workflow_id: z.string().optional(),
    schema: z.string().optional(),
  })
  .meta({ id: 'Job', description: 'OJS job envelope' });
/** The job envelope. Unknown attributes sent by the client are kept at the top level. */
export type Job = z.output<typeof JobSchema>;

/** Keys a client may not set: the server owns them. */
export const SYSTEM_MANAGED_KEYS: readonly string[] = [
  'state',
  'attempt',
  'max_attempts',
  'created_at',
  'enqueued_at',
  'started_at',
  'completed_at',
  'cancelled_at',
  'discarded_at',
  'error',
  'errors',
  'result',
  'worker_id',
  'retry_delay_ms',
  'next_attempt_at',
  'parent_results',
  'workflow_id',
  'expired_at',
  'activated_at',
  'previous_state',
];
