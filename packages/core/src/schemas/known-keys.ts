/**
 * The keys each object under `options` accepts. A key outside these lists is refused with an error naming the
 * accepted keys and the nearest one (spec/envelope.md E7): a misspelt or invented option (`qeueu`, `delay`,
 * `max_attempts` at the wrong level) would otherwise be ignored and the job run with the defaults.
 */
import { OjsError } from '../errors/ojs-error.js';
import { nearestName } from '../formats/nearest-name.js';

/** Keys of an enqueue request's `options` (envelope.md, options table). */
export const ENQUEUE_OPTION_KEYS = [
  'queue',
  'priority',
  'timeout_ms',
  'scheduled_at',
  'delay_until',
  'expires_at',
  'retry',
  'retry_policy',
  'unique',
  'tags',
  'visibility_timeout_ms',
  'visibility_timeout',
  'pending',
  'metadata',
  'rate_limit',
] as const;

/** Keys of a retry policy (`options.retry`). */
export const RETRY_POLICY_KEYS = [
  'max_attempts',
  'initial_interval',
  'initial_interval_ms',
  'backoff_coefficient',
  'max_interval',
  'max_interval_ms',
  'jitter',
  'non_retryable_errors',
  'on_exhaustion',
  'backoff_strategy',
  'backoff_type',
] as const;

/** Keys of a unique policy (`options.unique`). */
export const UNIQUE_POLICY_KEYS = ['keys', 'key', 'args_keys', 'meta_keys', 'period', 'states', 'on_conflict'] as const;

const OPTION_SET: ReadonlySet<string> = new Set(ENQUEUE_OPTION_KEYS);
const RETRY_SET: ReadonlySet<string> = new Set(RETRY_POLICY_KEYS);
const UNIQUE_SET: ReadonlySet<string> = new Set(UNIQUE_POLICY_KEYS);

/** The first own key of `value` that `known` lacks. */
function firstUnknown(value: Record<string, unknown>, known: ReadonlySet<string>): string | undefined {
  for (const key in value) if (!known.has(key) && Object.hasOwn(value, key)) return key;
  return undefined;
}

/** Where a key that is not an option belongs instead, when it is a key of a policy under `options`. */
function misplaced(key: string, at: string): string | undefined {
  if (RETRY_SET.has(key)) return `${at}.retry.${key}`;
  if (UNIQUE_SET.has(key) && key !== 'key' && key !== 'keys') return `${at}.unique.${key}`;
  return undefined;
}

function unknownKey(
  kind: 'option' | 'retry policy key' | 'unique policy key',
  at: string,
  key: string,
  accepted: readonly string[],
  suggestion: string | undefined,
): OjsError {
  const field = `${at}.${key}`;
  const hint = suggestion ? ` Did you mean '${suggestion}'?` : '';
  const message = `Unknown ${kind} '${field}'.${hint} Accepted under '${at}': ${accepted.join(', ')}.`;
  const details = { field, expected: `one of ${accepted.join(', ')}`, received: key, validation: 'unknown_key', ...(suggestion ? { suggestion } : {}) };
  // The retry policy's fields answer 422 validation_error (envelope.md, Validation); everything else 400.
  return kind === 'retry policy key' ? OjsError.validation(message, details) : OjsError.invalidRequest(message, details);
}

/**
 * Throws when `options` (found at `at`, e.g. `options` or `job_template.options`) holds a key the protocol
 * does not define.
 * @example checkOptionKeys({ qeueu: 'email' }) // throws 400: Unknown option 'options.qeueu'. Did you mean 'options.queue'? …
 */
export function checkOptionKeys(options: Record<string, unknown>, at = 'options'): void {
  const key = firstUnknown(options, OPTION_SET);
  if (key === undefined) return;
  const near = nearestName(key, ENQUEUE_OPTION_KEYS);
  throw unknownKey('option', at, key, ENQUEUE_OPTION_KEYS, misplaced(key, at) ?? (near ? `${at}.${near}` : undefined));
}

/**
 * Throws when a retry or unique policy object (found at `at`, e.g. `options.retry` or `unique`) holds a key
 * its table does not define. A value that is not an object is left to the policy's own validation.
 */
export function checkPolicyKeys(policy: unknown, at: string, kind: 'retry' | 'unique'): void {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) return;
  const [known, names] = kind === 'retry' ? [RETRY_SET, RETRY_POLICY_KEYS] : [UNIQUE_SET, UNIQUE_POLICY_KEYS];
  const key = firstUnknown(policy as Record<string, unknown>, known);
  if (key === undefined) return;
  const near = nearestName(key, names);
  throw unknownKey(kind === 'retry' ? 'retry policy key' : 'unique policy key', at, key, names, near ? `${at}.${near}` : undefined);
}
