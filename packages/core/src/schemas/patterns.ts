/** Name patterns and limits from the protocol's envelope rules. */

/** Job type: lowercase dot-separated segments. */
export const JOB_TYPE_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/;
/** Queue names (also cron names). */
export const QUEUE_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]*$/;
export const MAX_TYPE_LENGTH = 255;
export const MAX_QUEUE_LENGTH = 128;
export const MAX_CRON_NAME_LENGTH = 255;
export const MIN_PRIORITY = -100;
export const MAX_PRIORITY = 100;
/** Named priorities the protocol allows on input; stored numerically. */
export const NAMED_PRIORITIES: Readonly<Record<string, number>> = { HIGH: 10, NORMAL: 0, LOW: -10 };
/** Server defaults, in milliseconds. */
export const DEFAULT_VISIBILITY_TIMEOUT_MS = 1_800_000;
export const DEFAULT_EXECUTION_TIMEOUT_MS = 1_800_000;
/**
 * Longest execution or visibility timeout, in ms: 2³¹−1 (about 24.8 days), the longest delay a JavaScript
 * timer can wait (a longer `setTimeout` fires after 1 ms), so no SDK worker timer overflows.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;
/** Longest retry interval (`initial_interval`, `max_interval`): one year, so a retry is never scheduled past year 9999. */
export const MAX_RETRY_INTERVAL_MS = 366 * 86_400_000;
/** The envelope size every server must accept. */
export const MAX_ENVELOPE_BYTES = 1_048_576;
export const MAX_META_BYTES = 65_536;
/**
 * How deeply a request's JSON may nest (the body object is level 1). Deeper values overflow the recursive
 * encoders and decoders of the stores (Redis's cjson, PostgreSQL's jsonb, V8's JSON) at a few thousand
 * levels, and no job needs more: refused with `400 invalid_request` before anything is stored.
 */
export const MAX_JSON_DEPTH = 64;
/** How many errors a job keeps in `errors` (the protocol asks for at least 10). */
export const ERROR_HISTORY_LIMIT = 20;

/** True for a valid queue name. */
export function isQueueName(value: unknown): value is string {
  // Requests mostly name the queue the one before named: comparing strings costs less than the pattern.
  if (typeof value === 'string' && value === lastQueueName) return true;
  if (typeof value !== 'string' || value.length > MAX_QUEUE_LENGTH || !QUEUE_NAME_PATTERN.test(value)) return false;
  lastQueueName = value;
  return true;
}

/** The last name `isQueueName` accepted. */
let lastQueueName: string | undefined;
