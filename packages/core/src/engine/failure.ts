/** The FAIL decision, once: build the error, then retry with backoff, discard, or dead-letter. */
import type { FailItem } from '../driver/driver.js';
import type { StoredJob } from '../driver/records.js';
import type { Job, JobError } from '../schemas/job.js';
import { ERROR_HISTORY_LIMIT } from '../schemas/patterns.js';
import { retryPolicyFromJob } from '../schemas/retry-policy.js';
import type { FailErrorInput } from '../schemas/worker-requests.js';
import { retryDelayMs } from '../retry/backoff.js';
import { matchesNonRetryable } from '../retry/non-retryable.js';

/** Handler response codes with fixed meaning: discard without DLQ, or dead-letter regardless of policy. */
const DISCARD_CODES = new Set(['DISCARD', 'FAIL']);
const DEAD_LETTER_CODE = 'DEAD_LETTER';
const MAX_BACKTRACE_FRAMES = 50;
const MAX_BACKTRACE_CHARS = 10_000;

function truncateBacktrace(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, MAX_BACKTRACE_FRAMES);
  if (typeof value === 'string') return value.slice(0, MAX_BACKTRACE_CHARS);
  return value;
}

/** The error object stored on a job, from a FAIL request's `error` (or a server-side failure). */
export function buildJobError(input: FailErrorInput, attempt: number, occurredAt: string): JobError {
  const { code: rawCode, message, type, retryable, details, backtrace, ...extra } = input;
  const code = rawCode || 'handler_error';
  const errorClass = typeof details?.error_class === 'string' ? details.error_class : undefined;
  const error: JobError = { ...extra, code, type: type || errorClass || code, message: message ?? '', attempt, occurred_at: occurredAt };
  if (retryable !== undefined) error.retryable = retryable;
  if (details !== undefined) error.details = details;
  if (backtrace !== undefined) error.backtrace = truncateBacktrace(backtrace);
  return error;
}

/** The failure an active job's FAIL, timeout or lost reservation leads to (a `jobFailMany` item), and whether it puts the job in the dead-letter queue. */
export interface FailureDecision {
  item: FailItem;
  deadLettered: boolean;
}

function history(job: Job, error: JobError): JobError[] {
  return [...(job.errors ?? []), error].slice(-ERROR_HISTORY_LIMIT);
}

/**
 * FAIL (and execution timeout): retry iff the error is retryable and attempts remain, else discard
 * (into the DLQ when the policy says `dead_letter`, or the handler said `DEAD_LETTER`).
 */
export function decideFailure(stored: StoredJob, error: JobError, random: () => number): FailureDecision {
  const { job } = stored;
  const policy = retryPolicyFromJob(job.retry, job.max_attempts);
  const errorClass = typeof error.details?.error_class === 'string' ? error.details.error_class : undefined;
  const forcedDiscard = DISCARD_CODES.has(error.code);
  const forcedDeadLetter = error.code === DEAD_LETTER_CODE;
  const nonRetryable =
    error.retryable === false ||
    error.code === 'cancelled' ||
    forcedDiscard ||
    forcedDeadLetter ||
    matchesNonRetryable(policy.nonRetryableErrors, [error.type, error.code, errorClass]);
  const errors = history(job, error);
  if (nonRetryable || job.attempt >= job.max_attempts) {
    const deadLettered = forcedDeadLetter || (!forcedDiscard && policy.onExhaustion === 'dead_letter');
    return { deadLettered, item: { id: job.id, outcome: 'discard', attempt: job.attempt, error, errors, deadLetter: deadLettered } };
  }
  const delay = retryDelayMs(policy, job.attempt, random);
  return { deadLettered: false, item: { id: job.id, outcome: 'retry', attempt: job.attempt, error, errors, retryDelayMs: delay } };
}

/**
 * A reclaim after a visibility deadline or a dead worker: back to `available` without backoff (attempt
 * consumed), or `discarded` when attempts are exhausted. Guarded on the deadline so a heartbeat that
 * just extended it wins.
 */
export function decideReclaim(stored: StoredJob, error: JobError): FailureDecision {
  const { job } = stored;
  const errors = history(job, error);
  const item: FailItem = { id: job.id, outcome: 'reclaim', attempt: job.attempt, error, errors };
  if (stored.x.visibleUntil !== undefined) item.visibleUntil = stored.x.visibleUntil;
  if (job.attempt >= job.max_attempts) {
    const policy = retryPolicyFromJob(job.retry, job.max_attempts);
    const deadLettered = policy.onExhaustion === 'dead_letter';
    return { deadLettered, item: { ...item, outcome: 'reclaimDiscard', deadLetter: deadLettered } };
  }
  return { deadLettered: false, item };
}
