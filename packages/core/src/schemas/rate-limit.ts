/** Validation of rate limits: a job's `options.rate_limit` and a queue configuration's `rate_limit` (spec/rate-limits.md R1, R2). */
import { OjsError } from '../errors/ojs-error.js';
import {
  MAX_PER_SECOND,
  MAX_RATE_CONCURRENCY,
  MAX_RATE_LIMIT_KEY_LENGTH,
  QUEUE_RATE_LIMIT_KEYS,
  RATE_LIMIT_KEYS,
  type QueueRateLimitWire,
  type RateLimitWire,
} from '../rate-limit/policy.js';
import { invalidField, isPlainObject } from './fields.js';

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
