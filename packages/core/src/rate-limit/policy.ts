/**
 * Rate limits as the protocol spells them (`options.rate_limit` on a job, `rate_limit` in a queue's
 * configuration), validated once here and turned into the record every driver's claim reads (`ClaimLimit`).
 * The claim rule itself is in rule.ts; spec/rate-limits.md explains both.
 */
import { OjsError } from '../errors/ojs-error.js';
import { invalidField, isPlainObject } from '../schemas/fields.js';

/** Keys of `options.rate_limit`. */
export const RATE_LIMIT_KEYS = ['max_per_second', 'concurrency', 'key'] as const;
/** Keys of a queue configuration's `rate_limit` (a queue-level limit has no key: it is the queue). */
export const QUEUE_RATE_LIMIT_KEYS = ['max_per_second', 'concurrency'] as const;
/** Longest concurrency key: it names a key in every store (a Redis key, a PostgreSQL text value). */
export const MAX_RATE_LIMIT_KEY_LENGTH = 255;
/** Highest `max_per_second`: the spacing `1000 / n` ms must stay a meaningful interval (≥ 1 µs). */
export const MAX_PER_SECOND = 1_000_000;
/** Highest `concurrency`. */
export const MAX_RATE_CONCURRENCY = 1_000_000;

/**
 * A job's limits as drivers store them (`JobInternals.rateLimit`). `intervalMs` is `1000 / max_per_second`:
 * the least time between two limited claims from the job's queue. `key` is always set with `concurrency`
 * (defaulted to the queue's name): at most `concurrency` jobs sharing it are `active` at once.
 */
export interface ClaimLimit {
  intervalMs?: number;
  concurrency?: number;
  key?: string;
}

/** The wire form of a job's limit (`options.rate_limit`). */
export interface RateLimitWire {
  max_per_second?: number;
  concurrency?: number;
  key?: string;
}

/** The wire form of a queue's limit (queue configuration `rate_limit`). */
export type QueueRateLimitWire = Omit<RateLimitWire, 'key'>;

function unknownKey(at: string, key: string, accepted: readonly string[]): never {
  throw OjsError.invalidRequest(`Unknown key '${at}.${key}'. Accepted under '${at}': ${accepted.join(', ')}.`, {
    field: `${at}.${key}`,
    expected: `one of ${accepted.join(', ')}`,
    received: key,
    validation: 'unknown_key',
  });
}

function maxPerSecond(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_PER_SECOND) {
    invalidField(field, `a positive number of claims per second, at most ${MAX_PER_SECOND}`, value);
  }
  return value;
}

function concurrency(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RATE_CONCURRENCY) {
    invalidField(field, `an integer from 1 to ${MAX_RATE_CONCURRENCY}`, value);
  }
  return value;
}

/**
 * Validates `options.rate_limit` (found at `at`): `max_per_second` a positive number, `concurrency` a positive
 * integer, `key` a non-empty string of at most 255 characters (only with `concurrency`), no other key.
 * Throws `400 invalid_request` naming the field. Returns the wire form as given (defaults not filled in).
 * @example parseRateLimit({ concurrency: 2, key: 'stripe' }, 'options.rate_limit') // { concurrency: 2, key: 'stripe' }
 */
export function parseRateLimit(value: unknown, at: string): RateLimitWire {
  if (!isPlainObject(value)) invalidField(at, 'an object of max_per_second, concurrency, key', value);
  for (const key in value) if (!(RATE_LIMIT_KEYS as readonly string[]).includes(key)) unknownKey(at, key, RATE_LIMIT_KEYS);
  const wire: RateLimitWire = {};
  const n = maxPerSecond(value.max_per_second, `${at}.max_per_second`);
  if (n !== undefined) wire.max_per_second = n;
  const k = concurrency(value.concurrency, `${at}.concurrency`);
  if (k !== undefined) wire.concurrency = k;
  if (value.key !== undefined && value.key !== null) {
    const key = value.key;
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_RATE_LIMIT_KEY_LENGTH) {
      invalidField(`${at}.key`, `a non-empty string of at most ${MAX_RATE_LIMIT_KEY_LENGTH} characters`, key);
    }
    if (k === undefined) invalidField(`${at}.key`, `to come with ${at}.concurrency (a key groups jobs for a concurrency limit)`, key);
    wire.key = key;
  }
  if (n === undefined && k === undefined) invalidField(at, 'at least one of max_per_second, concurrency', value);
  return wire;
}

/** Validates a queue configuration's `rate_limit` (`max_per_second`, `concurrency`; no key). */
export function parseQueueRateLimit(value: unknown, at = 'rate_limit'): QueueRateLimitWire {
  if (!isPlainObject(value)) invalidField(at, 'an object of max_per_second, concurrency', value);
  for (const key in value) if (!(QUEUE_RATE_LIMIT_KEYS as readonly string[]).includes(key)) unknownKey(at, key, QUEUE_RATE_LIMIT_KEYS);
  const wire: QueueRateLimitWire = {};
  const n = maxPerSecond(value.max_per_second, `${at}.max_per_second`);
  if (n !== undefined) wire.max_per_second = n;
  const k = concurrency(value.concurrency, `${at}.concurrency`);
  if (k !== undefined) wire.concurrency = k;
  return wire;
}

/** The least time between two limited claims for `max_per_second` claims a second. */
export function intervalMsOf(maxPerSecond: number): number {
  return 1000 / maxPerSecond;
}

/** What a job's claim checks, from its `options.rate_limit` and its queue. */
export function claimLimitOf(wire: RateLimitWire, queue: string): ClaimLimit {
  const limit: ClaimLimit = {};
  if (wire.max_per_second !== undefined) limit.intervalMs = intervalMsOf(wire.max_per_second);
  if (wire.concurrency !== undefined) {
    limit.concurrency = wire.concurrency;
    limit.key = wire.key ?? queue;
  }
  return limit;
}
