/** The enqueue request (flat and `options` forms): its schema, and its parsing into a job ready to store. */
import { z } from 'zod';
import { OjsError } from '../errors/ojs-error.js';
import { durationToMs } from '../formats/durations.js';
import { newId } from '../formats/ids.js';
import { toTimestamp } from '../formats/timestamps.js';
import type { JobState } from '../lifecycle/states.js';
import {
  checkJobId,
  checkEnvelopeSize,
  checkJobType,
  checkJsonValues,
  checkTimeoutMs,
  checkPriority,
  checkQueue,
  checkStringArray,
  checkTimestamp,
  invalidField,
  isPlainObject,
  requireObject,
} from './fields.js';
import { SYSTEM_MANAGED_KEYS, type Job } from './job.js';
import { checkOptionKeys, checkPolicyKeys } from './known-keys.js';
import {
  DEFAULT_EXECUTION_TIMEOUT_MS,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  JOB_TYPE_PATTERN,
  MAX_META_BYTES,
  MAX_QUEUE_LENGTH,
  MAX_TIMEOUT_MS,
  MAX_TYPE_LENGTH,
  QUEUE_NAME_PATTERN,
} from './patterns.js';
import { UUIDV7_PATTERN } from '../formats/ids.js';
import { RetryPolicyInputSchema, resolveRetryPolicy, retryPolicyToWire, type RetryPolicy } from './retry-policy.js';
import { resolveUniquePolicy, type UniquePolicy } from '../unique/policy.js';
import { uniqueFingerprint } from '../unique/fingerprint.js';
import type { RateLimitWire } from '../rate-limit/policy.js';
import { parseRateLimit } from './rate-limit.js';

/** `options` of an enqueue request. */
const queueName = z.string().max(MAX_QUEUE_LENGTH).regex(QUEUE_NAME_PATTERN);
const timeText = z.string().describe('RFC 3339 timestamp with offset, or +<ISO 8601 duration>');
/** Seconds, or an ISO 8601 duration (`PT30S`); either way at most MAX_TIMEOUT_MS. */
const visibilityTimeout = z.union([
  z
    .number()
    .positive()
    .max(MAX_TIMEOUT_MS / 1000),
  z.string().describe('ISO 8601 duration'),
]);

export const EnqueueOptionsSchema = z.strictObject({
  queue: queueName.optional(),
  priority: z.union([z.number().int().min(-100).max(100), z.enum(['HIGH', 'NORMAL', 'LOW'])]).optional(),
  timeout_ms: z.number().int().min(0).optional(),
  scheduled_at: timeText.optional(),
  delay_until: timeText.optional(),
  expires_at: timeText.optional(),
  retry: RetryPolicyInputSchema.optional(),
  retry_policy: RetryPolicyInputSchema.optional(),
  unique: z.looseObject({}).optional(),
  tags: z.array(z.string()).optional(),
  visibility_timeout_ms: z.number().int().positive().optional(),
  visibility_timeout: visibilityTimeout.optional(),
  pending: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  rate_limit: z
    .strictObject({
      max_per_second: z.number().positive().optional(),
      concurrency: z.number().int().min(1).optional(),
      key: z.string().min(1).max(255).optional(),
    })
    .optional()
    .describe('claim limits (spec/rate-limits.md); 422 unsupported on a backend whose manifest says rate_limiting: false'),
});

/** The enqueue request body (`POST /ojs/v1/jobs`, and each element of a batch). Unknown keys are kept. */
export const EnqueueRequestSchema = z
  .looseObject({
    type: z.string().min(1).max(MAX_TYPE_LENGTH).regex(JOB_TYPE_PATTERN),
    args: z.array(z.unknown()),
    id: z.string().regex(UUIDV7_PATTERN).optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
    schema: z.string().optional(),
    specversion: z.literal('1.0').optional(),
    options: EnqueueOptionsSchema.optional(),
    queue: queueName.optional(),
    priority: z.number().int().min(-100).max(100).optional(),
    timeout: z.number().min(0).optional(),
    scheduled_at: timeText.optional(),
    expires_at: timeText.optional(),
    retry: RetryPolicyInputSchema.optional(),
    unique: z.looseObject({}).optional(),
    tags: z.array(z.string()).optional(),
    visibility_timeout: visibilityTimeout.optional(),
    pending: z.boolean().optional(),
  })
  .meta({ id: 'EnqueueRequest', description: 'OJS enqueue request' });

/** A validated enqueue request, turned into everything a driver needs to store the job. */
export interface ParsedEnqueue {
  /** The job as it will be served, in its initial state. */
  job: Job;
  retryPolicy: Readonly<RetryPolicy>;
  /** Epoch ms at which a `scheduled` job becomes due. */
  dueAt?: number;
  /** Epoch ms of `expires_at`. */
  expiresAt?: number;
  /** Reservation length after a claim (job's own or the server default). */
  visibilityMs: number;
  /** Execution limit per attempt. */
  timeoutMs: number;
  unique?: { policy: UniquePolicy; key: string; until?: number };
  /** `options.rate_limit` as validated (the engine refuses it on a backend without `capabilities.rateLimiting`). */
  rateLimit?: RateLimitWire;
}

/** Server-side settings that shape parsing. */
export interface EnqueueDefaults {
  visibilityTimeoutMs?: number;
  executionTimeoutMs?: number;
}

const FLAT_KEYS = new Set([
  'type',
  'args',
  'id',
  'meta',
  'schema',
  'specversion',
  'options',
  'queue',
  'priority',
  'timeout',
  'scheduled_at',
  'expires_at',
  'retry',
  'unique',
  'tags',
  'visibility_timeout',
  'pending',
  'delay_until',
  'timeout_ms',
  'visibility_timeout_ms',
  'retry_policy',
  'rate_limit',
]);
const IGNORED = new Set(SYSTEM_MANAGED_KEYS);

/**
 * `options.x` when present, else the flat `x`, with the field name to use in errors. Field names are
 * literals, so the hot path allocates nothing here.
 */
function pick(body: Record<string, unknown>, options: Record<string, unknown>, key: string, optionsField: string): { key: string; value: unknown } | undefined {
  const fromOptions = options[key];
  if (fromOptions !== undefined) return { key: optionsField, value: fromOptions };
  const flat = body[key];
  return flat === undefined ? undefined : { key, value: flat };
}

/** `pick` for a field with an alias: both `options.*` spellings win over both flat ones. */
function pickAliased(
  body: Record<string, unknown>,
  options: Record<string, unknown>,
  names: readonly [string, string, string, string],
): { key: string; value: unknown } | undefined {
  const [key, alias, optionsField, optionsAlias] = names;
  if (options[key] !== undefined) return { key: optionsField, value: options[key] };
  if (options[alias] !== undefined) return { key: optionsAlias, value: options[alias] };
  if (body[key] !== undefined) return { key, value: body[key] };
  return body[alias] === undefined ? undefined : { key: alias, value: body[alias] };
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Keys of a request (and of its `options`) that `parseEnqueue` reads before it looks at anything else. */
const COMMON_KEYS: ReadonlySet<string> = new Set(['type', 'args', 'id', 'meta', 'specversion', 'options', 'queue', 'priority']);
const COMMON_OPTION_KEYS: ReadonlySet<string> = new Set(['queue', 'priority']);

/**
 * False when `body` and `options` are plain objects holding only common keys, so every other field is
 * certainly absent. Most requests are like that, and looking each optional field up (in `options`, then
 * flat) was about a third of the cost of a parse. Anything unusual (another key, a prototype that could
 * supply a field) answers true and takes the full path.
 */
function usesMore(body: Record<string, unknown>, options: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(body) !== Object.prototype) return true;
  for (const key in body) if (!COMMON_KEYS.has(key)) return true;
  if (options === EMPTY) return false;
  if (Object.getPrototypeOf(options) !== Object.prototype) return true;
  for (const key in options) if (!COMMON_OPTION_KEYS.has(key)) return true;
  return false;
}

function hasKeys(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/** UTF-8 size of a JSON text, without encoding it when it is clearly small (≤ 3 bytes per UTF-16 unit). */
function jsonBytesOver(text: string, limit: number): boolean {
  if (text.length * 3 <= limit) return false;
  return new TextEncoder().encode(text).length > limit;
}

/**
 * Validates an enqueue request in the protocol's order (first failing rule wins) and builds the job.
 * Throws `OjsError`: `400 invalid_request` for field errors and unknown keys under `options` (the error names
 * the accepted keys and the nearest one), `422 validation_error` for the retry policy,
 * `413 payload_too_large` for an oversized `meta`.
 * @example parseEnqueue({ type: 'email.send', args: ['a@b.c'] }, Date.now()).job.state // 'available'
 */
export function parseEnqueue(input: unknown, now: number, defaults: EnqueueDefaults = {}): ParsedEnqueue {
  const body = requireObject(input, 'body', true);
  checkEnvelopeSize(body, checkJsonValues(body));
  const type = checkJobType(body.type);
  if (!Array.isArray(body.args)) invalidField('args', 'a JSON array', body.args);
  const args = body.args as unknown[];
  if (body.specversion !== undefined && body.specversion !== '1.0') invalidField('specversion', '"1.0"', body.specversion);
  const id = 'id' in body ? checkJobId(body.id) : newId();
  let options: Record<string, unknown> = EMPTY;
  if (body.options !== undefined) {
    if (!isPlainObject(body.options)) invalidField('options', 'an object', body.options);
    options = body.options;
  }
  const queueField = pick(body, options, 'queue', 'options.queue');
  const queue = queueField ? checkQueue(queueField.value, queueField.key) : 'default';
  const priorityField = pick(body, options, 'priority', 'options.priority');
  const priority = priorityField ? checkPriority(priorityField.value, priorityField.key) : 0;

  let meta: Record<string, unknown>;
  if (body.meta !== undefined) {
    if (!isPlainObject(body.meta)) invalidField('meta', 'an object', body.meta);
    meta = { ...body.meta };
  } else meta = {};
  if (options.metadata !== undefined) {
    if (!isPlainObject(options.metadata)) invalidField('options.metadata', 'an object', options.metadata);
    meta = { ...meta, ...options.metadata };
  }

  const more = usesMore(body, options);
  // Only a request with more than the common keys can hold an unknown option (usesMore is true then).
  if (more && options !== EMPTY) checkOptionKeys(options);
  const scheduledField = more ? pickAliased(body, options, ['scheduled_at', 'delay_until', 'options.scheduled_at', 'options.delay_until']) : undefined;
  const scheduled = scheduledField ? checkTimestamp(scheduledField.value, scheduledField.key, now) : undefined;
  const expiresField = more ? pick(body, options, 'expires_at', 'options.expires_at') : undefined;
  const expires = expiresField ? checkTimestamp(expiresField.value, expiresField.key, now) : undefined;

  let timeoutMs: number | undefined;
  let timeoutSeconds: number | undefined;
  let visibilityMs: number | undefined;
  if (more) {
    if (options.timeout_ms !== undefined) timeoutMs = checkTimeoutMs(options.timeout_ms, 'options.timeout_ms', true);
    else if (body.timeout_ms !== undefined) timeoutMs = checkTimeoutMs(body.timeout_ms, 'timeout_ms', true);
    if (body.timeout !== undefined) {
      if (typeof body.timeout !== 'number' || !(body.timeout >= 0) || body.timeout * 1000 > MAX_TIMEOUT_MS) {
        invalidField('timeout', `a number of seconds from 0 to ${MAX_TIMEOUT_MS / 1000}`, body.timeout);
      }
      timeoutSeconds = body.timeout;
      timeoutMs ??= Math.round(body.timeout * 1000);
    }

    if (options.visibility_timeout_ms !== undefined) visibilityMs = checkTimeoutMs(options.visibility_timeout_ms, 'options.visibility_timeout_ms');
    else if (body.visibility_timeout_ms !== undefined) visibilityMs = checkTimeoutMs(body.visibility_timeout_ms, 'visibility_timeout_ms');
    else {
      const vt = pick(body, options, 'visibility_timeout', 'options.visibility_timeout');
      if (vt) {
        const ms = typeof vt.value === 'string' ? durationToMs(vt.value) : typeof vt.value === 'number' && vt.value > 0 ? vt.value * 1000 : undefined;
        if (ms === undefined || ms <= 0 || ms > MAX_TIMEOUT_MS)
          invalidField(vt.key, `a positive ISO 8601 duration or number of seconds, at most ${MAX_TIMEOUT_MS} ms`, vt.value);
        visibilityMs = Math.round(ms);
      }
    }
  }

  const tagsField = more ? pick(body, options, 'tags', 'options.tags') : undefined;
  const tags = tagsField ? checkStringArray(tagsField.value, tagsField.key) : undefined;
  const pendingField = more ? pick(body, options, 'pending', 'options.pending') : undefined;
  if (pendingField && typeof pendingField.value !== 'boolean') invalidField(pendingField.key, 'a boolean', pendingField.value);
  const pending = pendingField?.value === true;
  if (more && body.schema !== undefined && typeof body.schema !== 'string') invalidField('schema', 'a URI string', body.schema);

  const retryField = more ? pickAliased(body, options, ['retry', 'retry_policy', 'options.retry', 'options.retry_policy']) : undefined;
  // null is no policy object (the default applies when the field is absent); the schema refuses it too.
  if (retryField?.value === null) invalidField(retryField.key, 'a retry policy object', null);
  if (retryField) checkPolicyKeys(retryField.value, retryField.key, 'retry');
  const retryPolicy = resolveRetryPolicy(retryField?.value, retryField?.key);
  const uniqueField = more ? pick(body, options, 'unique', 'options.unique') : undefined;
  if (uniqueField) checkPolicyKeys(uniqueField.value, uniqueField.key, 'unique');
  const uniquePolicy = uniqueField ? resolveUniquePolicy(uniqueField.value) : undefined;

  const rateField = more ? pick(body, options, 'rate_limit', 'options.rate_limit') : undefined;
  const rateLimit = rateField ? parseRateLimit(rateField.value, rateField.key) : undefined;
  if (hasKeys(meta) && jsonBytesOver(JSON.stringify(meta), MAX_META_BYTES)) {
    throw new OjsError('payload_too_large', `meta is larger than ${MAX_META_BYTES} bytes.`, { details: { field: 'meta' } });
  }

  const state: JobState = pending ? 'pending' : scheduled && scheduled.ms > now ? 'scheduled' : 'available';
  const createdAt = toTimestamp(now);
  const job: Job = {
    specversion: '1.0',
    id,
    type,
    queue,
    args,
    meta,
    priority,
    state,
    attempt: 0,
    max_attempts: retryPolicy.maxAttempts,
    created_at: createdAt,
  };
  if (state === 'available') job.enqueued_at = createdAt;
  if (scheduled) job.scheduled_at = scheduled.text;
  if (expires) job.expires_at = expires.text;
  if (retryField) job.retry = retryPolicyToWire(retryPolicy);
  if (uniqueField) job.unique = uniqueField.value as Record<string, unknown>;
  if (rateLimit) job.rate_limit = rateLimit;
  if (tags) job.tags = tags;
  if (timeoutMs !== undefined) job.timeout_ms = timeoutMs;
  if (timeoutSeconds !== undefined) job.timeout = timeoutSeconds;
  if (visibilityMs !== undefined) job.visibility_timeout_ms = visibilityMs;
  if (more && typeof body.schema === 'string') job.schema = body.schema;
  if (more)
    for (const key in body) {
      if (FLAT_KEYS.has(key) || IGNORED.has(key) || !Object.hasOwn(body, key)) continue;
      const value = body[key];
      if (value !== undefined) job[key] = value;
    }

  const parsed: ParsedEnqueue = {
    job,
    retryPolicy,
    visibilityMs: visibilityMs ?? defaults.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS,
    timeoutMs: timeoutMs && timeoutMs > 0 ? timeoutMs : (defaults.executionTimeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS),
  };
  if (state === 'scheduled') parsed.dueAt = scheduled!.ms;
  if (expires) parsed.expiresAt = expires.ms;
  if (rateLimit) parsed.rateLimit = rateLimit;
  if (uniquePolicy) {
    parsed.unique = { policy: uniquePolicy, key: uniqueFingerprint(job, uniquePolicy) };
    if (uniquePolicy.periodMs !== undefined) parsed.unique.until = now + uniquePolicy.periodMs;
  }
  return parsed;
}
