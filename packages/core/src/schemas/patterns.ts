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
/** The envelope size every server must accept. */
export const MAX_ENVELOPE_BYTES = 1_048_576;
export const MAX_META_BYTES = 65_536;
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
