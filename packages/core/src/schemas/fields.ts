/** Field checks shared by every request parser: each throws the OJS error the protocol names for that field. */
import { OjsError } from '../errors/ojs-error.js';
import { isUuidV7 } from '../formats/ids.js';
import { resolveTimestamp } from '../formats/timestamps.js';
import {
  JOB_TYPE_PATTERN,
  MAX_PRIORITY,
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
    ...(received !== undefined ? { received: summarize(received) } : {}),
    validation: 'invalid',
  });
}

function summarize(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  return Array.isArray(value) ? 'array' : 'object';
}

/** A plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body must be a JSON object. */
export function requireObject(value: unknown, field = 'body'): Record<string, unknown> {
  if (!isPlainObject(value)) invalidField(field, 'a JSON object', value);
  return value;
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
  if (!resolved) invalidField(field, 'an RFC 3339 timestamp with an offset, or +<ISO 8601 duration>', value);
  return resolved;
}

export function checkNonNegativeInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) invalidField(field, 'a non-negative integer', value);
  return value;
}

export function checkPositiveInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) invalidField(field, 'a positive integer', value);
  return value;
}

export function checkStringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) invalidField(field, 'an array of strings', value);
  return value;
}
