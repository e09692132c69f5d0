/** Field checks shared by every request parser: each throws the OJS error the protocol names for that field. */
import { OjsError } from '../errors/ojs-error.js';
import { isUuidV7 } from '../formats/ids.js';
import { resolveTimestamp } from '../formats/timestamps.js';
import {
  JOB_TYPE_PATTERN,
  MAX_ENVELOPE_BYTES,
  MAX_JSON_DEPTH,
  MAX_PRIORITY,
  MAX_TIMEOUT_MS,
  MAX_TYPE_LENGTH,
  MIN_PRIORITY,
  NAMED_PRIORITIES,
  isQueueName,
} from './patterns.js';

/** Throws `400 invalid_request` naming the field, what was expected and what was received. */
export function invalidField(field: string, expected: string, received?: unknown): never {
  throw OjsError.invalidRequest(`Invalid '${field}': expected ${expected}.`, {
    field,
    expected,
    ...(received !== undefined ? { received: summarizeReceived(received) } : {}),
    validation: 'invalid',
  });
}

/**
 * A received value as an error may echo it: long strings cut, objects and arrays named. An error never
 * carries a huge invalid value back (a 2 MB timezone once made a 4 MB error).
 */
export function summarizeReceived(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  return Array.isArray(value) ? 'array' : 'object';
}

/** A plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body must be a JSON object whose values pass `checkJsonValues`. `shallow` leaves the values alone, for
 * a wrapper whose elements are checked one by one (so their errors name the element's index).
 */
export function requireObject(value: unknown, field = 'body', shallow = false): Record<string, unknown> {
  if (!isPlainObject(value)) invalidField(field, 'a JSON object', value);
  if (!shallow) checkJsonValues(value);
  return value;
}

/** `String.prototype.isWellFormed` (ES2024; Node ≥ 20): false for a string holding a lone surrogate. */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

/**
 * A string every store keeps exactly: well-formed UTF-16 (no lone surrogate: Redis and PostgreSQL cannot
 * encode one in UTF-8) and without NUL (PostgreSQL text and jsonb cannot hold U+0000). Refused the same
 * way on every backend, rather than stored by some and failing in others.
 */
function checkText(text: string, field: string): void {
  if (text.includes('\u0000') || !isWellFormed.call(text)) {
    throw OjsError.invalidRequest(`Invalid '${field}': text must be well-formed Unicode without NUL (U+0000) characters or lone surrogates.`, {
      field,
      expected: 'well-formed Unicode text without U+0000',
      validation: 'string',
    });
  }
}

function tooDeep(field: string): never {
  throw OjsError.invalidRequest(`Invalid '${field}': JSON nested deeper than ${MAX_JSON_DEPTH} levels.`, {
    field,
    expected: `at most ${MAX_JSON_DEPTH} levels of nesting (the body is level 1)`,
    validation: 'depth',
  });
}

/**
 * Walks one value of a request (at nesting `level`, the body being 1): every string and key through
 * `checkText`, no deeper than `MAX_JSON_DEPTH`. Returns an upper bound of its JSON size in bytes (6 per
 * UTF-16 unit: the longest escape), so a caller measures exactly only values that might be large.
 */
function walkJson(value: unknown, field: string, level: number): number {
  if (typeof value === 'string') {
    checkText(value, field);
    return value.length * 6 + 2;
  }
  if (typeof value !== 'object' || value === null) {
    // In-process callers can pass what JSON cannot carry: every backend but memory would change or refuse it.
    if ((typeof value === 'number' && !Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
      throw OjsError.invalidRequest(`Invalid '${field}': holds a value JSON cannot carry (${typeof value === 'number' ? String(value) : typeof value}).`, {
        field,
        expected: 'JSON values only',
        validation: 'json',
      });
    }
    return 24;
  }
  if (level > MAX_JSON_DEPTH) tooDeep(field);
  let size = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) size += walkJson(value[i], field, level + 1) + 1;
    return size;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    checkText(key, field);
    size += key.length * 6 + 4 + walkJson((value as Record<string, unknown>)[key], field, level + 1);
  }
  return size;
}

/**
 * Checks every value of a request body (strings and nesting, see `walkJson`); an error names the top-level
 * field holding the bad value. Returns an upper bound of the body's JSON size in bytes.
 */
export function checkJsonValues(body: Record<string, unknown>): number {
  let size = 2;
  for (const key in body) {
    if (!Object.hasOwn(body, key)) continue;
    const value = body[key];
    checkText(key, 'body');
    size += key.length * 6 + 4 + walkJson(value, key, 2);
  }
  return size;
}

/**
 * `413 payload_too_large` when the JSON of `body` is over `MAX_ENVELOPE_BYTES` (UTF-8). `bound` is the upper
 * bound `checkJsonValues` returned: under the limit, nothing is encoded.
 */
export function checkEnvelopeSize(body: Record<string, unknown>, bound: number): void {
  if (bound <= MAX_ENVELOPE_BYTES) return;
  const bytes = new TextEncoder().encode(JSON.stringify(body)).length;
  if (bytes > MAX_ENVELOPE_BYTES) {
    throw new OjsError('payload_too_large', `The job envelope is ${bytes} bytes; the limit is ${MAX_ENVELOPE_BYTES}.`, {
      details: { field: 'body', limit_bytes: MAX_ENVELOPE_BYTES, size_bytes: bytes },
    });
  }
}

export function checkJobType(value: unknown, field = 'type'): string {
  // Requests mostly name the type the one before named: comparing strings costs less than the pattern.
  if (typeof value === 'string' && value === lastJobType) return value;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TYPE_LENGTH || !JOB_TYPE_PATTERN.test(value)) {
    invalidField(field, `a non-empty string of at most ${MAX_TYPE_LENGTH} characters matching ${JOB_TYPE_PATTERN.source}`, value);
  }
  lastJobType = value;
  return value;
}

/** The last job type `checkJobType` accepted. */
let lastJobType: string | undefined;

export function checkQueue(value: unknown, field = 'queue'): string {
  if (!isQueueName(value)) invalidField(field, 'a queue name matching ^[a-z0-9][a-z0-9.-]*$ (at most 128 characters)', value);
  return value;
}

export function checkJobId(value: unknown, field = 'id'): string {
  if (!isUuidV7(value)) invalidField(field, 'a lowercase UUIDv7', value);
  return value;
}

export function checkPriority(value: unknown, field = 'priority'): number {
  if (typeof value === 'string' && value in NAMED_PRIORITIES) return NAMED_PRIORITIES[value]!;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_PRIORITY || value > MAX_PRIORITY) {
    invalidField(field, `an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`, value);
  }
  return value;
}

export function checkTimestamp(value: unknown, field: string, now: number): { text: string; ms: number } {
  const resolved = typeof value === 'string' ? resolveTimestamp(value, now) : undefined;
  if (!resolved) invalidField(field, 'an RFC 3339 timestamp with an offset (years 0000-9999), or +<ISO 8601 duration> landing before year 10000', value);
  return resolved;
}

export function checkNonNegativeInt(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) invalidField(field, `an integer from 0 to ${max}`, value);
  return value;
}

export function checkPositiveInt(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) invalidField(field, `an integer from 1 to ${max}`, value);
  return value;
}

/** A timeout in ms: a positive integer (`allowZero`: or 0) up to `MAX_TIMEOUT_MS`. */
export function checkTimeoutMs(value: unknown, field: string, allowZero = false): number {
  return allowZero ? checkNonNegativeInt(value, field, MAX_TIMEOUT_MS) : checkPositiveInt(value, field, MAX_TIMEOUT_MS);
}

export function checkStringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) invalidField(field, 'an array of strings', value);
  return value;
}
