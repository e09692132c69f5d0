/** The retry policy object: its input schema, defaults, and resolution into milliseconds. */
import { z } from 'zod';
import { OjsError } from '../errors/ojs-error.js';
import { durationToMs, msToDuration } from '../formats/durations.js';
import type { RetryPolicyWire } from './job.js';
import { summarizeReceived } from './fields.js';
import { MAX_RETRY_INTERVAL_MS } from './patterns.js';

/** Backoff strategies the protocol names. */
export const BACKOFF_STRATEGIES = ['exponential', 'linear', 'constant', 'none', 'polynomial'] as const;
export type BackoffStrategy = (typeof BACKOFF_STRATEGIES)[number];

/** Input form of `options.retry` (durations as ISO 8601 strings, or ms numbers under `*_ms`). */
export const RetryPolicyInputSchema = z.strictObject({
  max_attempts: z.number().int().min(0).optional(),
  initial_interval: z.string().optional(),
  initial_interval_ms: z.number().positive().optional(),
  backoff_coefficient: z.number().optional(),
  max_interval: z.string().optional(),
  max_interval_ms: z.number().positive().optional(),
  jitter: z.boolean().optional(),
  non_retryable_errors: z.array(z.string()).optional(),
  on_exhaustion: z.enum(['discard', 'dead_letter']).optional(),
  backoff_strategy: z.enum(BACKOFF_STRATEGIES).optional(),
  backoff_type: z.enum(BACKOFF_STRATEGIES).optional(),
});

/** A policy with every field set, intervals in ms: what the retry math works with. */
export interface RetryPolicy {
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
  jitter: boolean;
  nonRetryableErrors: string[];
  onExhaustion: 'discard' | 'dead_letter';
  backoffStrategy: BackoffStrategy;
}

/** The protocol's defaults. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maxIntervalMs: 300_000,
  jitter: true,
  nonRetryableErrors: Object.freeze([]) as unknown as string[],
  onExhaustion: 'discard',
  backoffStrategy: 'exponential',
});

/** `field` is the full name (`retry.max_attempts`, `options.retry_policy`). */
function fail(field: string, message: string, received?: unknown): never {
  throw OjsError.validation(`Invalid retry policy: ${field} ${message}.`, {
    field,
    ...(received !== undefined ? { received: summarizeReceived(received) } : {}),
  });
}

function interval(raw: Record<string, unknown>, name: 'initial_interval' | 'max_interval', fallback: number, at: string): number {
  const ms = raw[`${name}_ms`];
  if (ms !== undefined) {
    if (typeof ms !== 'number' || !(ms > 0) || ms > MAX_RETRY_INTERVAL_MS)
      fail(`${at}.${name}_ms`, `must be a positive number up to ${MAX_RETRY_INTERVAL_MS}`, ms);
    return ms;
  }
  const text = raw[name];
  if (text === undefined) return fallback;
  if (typeof text !== 'string') fail(`${at}.${name}`, 'must be an ISO 8601 duration', text);
  const parsed = durationToMs(text);
  if (parsed === undefined || parsed <= 0 || parsed > MAX_RETRY_INTERVAL_MS)
    fail(`${at}.${name}`, 'must be a positive ISO 8601 duration of at most one year (P366D)', text);
  return parsed;
}

/**
 * Merges a partial policy with the defaults, field by field; throws `422 validation_error` on a bad field.
 * @example resolveRetryPolicy({ max_attempts: 5 }).maxAttempts // 5
 */
export function resolveRetryPolicy(input: unknown, at = 'retry'): Readonly<RetryPolicy> {
  if (input === undefined || input === null) return DEFAULT_RETRY_POLICY;
  if (typeof input !== 'object' || Array.isArray(input)) fail(at, 'must be an object', input);
  const raw = input as Record<string, unknown>;
  const d = DEFAULT_RETRY_POLICY;
  const maxAttempts = raw.max_attempts ?? d.maxAttempts;
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 0) fail(`${at}.max_attempts`, 'must be an integer ≥ 0', maxAttempts);
  const initialIntervalMs = interval(raw, 'initial_interval', d.initialIntervalMs, at);
  const maxIntervalMs = interval(raw, 'max_interval', Math.max(d.maxIntervalMs, initialIntervalMs), at);
  if (maxIntervalMs < initialIntervalMs) fail(`${at}.max_interval`, 'must be ≥ initial_interval', raw.max_interval ?? raw.max_interval_ms);
  const rawCoefficient = raw.backoff_coefficient ?? d.backoffCoefficient;
  if (typeof rawCoefficient !== 'number' || !Number.isFinite(rawCoefficient)) fail(`${at}.backoff_coefficient`, 'must be a number', rawCoefficient);
  const coefficient = rawCoefficient === 0 ? d.backoffCoefficient : rawCoefficient;
  if (coefficient < 1) fail(`${at}.backoff_coefficient`, 'must be ≥ 1.0', coefficient);
  const jitter = raw.jitter ?? d.jitter;
  if (typeof jitter !== 'boolean') fail(`${at}.jitter`, 'must be a boolean', jitter);
  const nonRetryable = raw.non_retryable_errors ?? [];
  if (!Array.isArray(nonRetryable) || nonRetryable.some((e) => typeof e !== 'string'))
    fail(`${at}.non_retryable_errors`, 'must be an array of strings', nonRetryable);
  const onExhaustion = raw.on_exhaustion ?? d.onExhaustion;
  if (onExhaustion !== 'discard' && onExhaustion !== 'dead_letter') fail(`${at}.on_exhaustion`, "must be 'discard' or 'dead_letter'", onExhaustion);
  const strategy = raw.backoff_strategy ?? raw.backoff_type ?? d.backoffStrategy;
  if (!(BACKOFF_STRATEGIES as readonly unknown[]).includes(strategy))
    fail(`${at}.backoff_strategy`, `must be one of ${BACKOFF_STRATEGIES.join(', ')}`, strategy);
  return {
    maxAttempts,
    initialIntervalMs,
    backoffCoefficient: coefficient,
    maxIntervalMs,
    jitter,
    nonRetryableErrors: nonRetryable as string[],
    onExhaustion,
    backoffStrategy: strategy as BackoffStrategy,
  };
}

/** The effective policy in wire form, as echoed on a job. */
export function retryPolicyToWire(policy: RetryPolicy): RetryPolicyWire {
  return {
    max_attempts: policy.maxAttempts,
    initial_interval: msToDuration(policy.initialIntervalMs),
    backoff_coefficient: policy.backoffCoefficient,
    max_interval: msToDuration(policy.maxIntervalMs),
    jitter: policy.jitter,
    non_retryable_errors: [...policy.nonRetryableErrors],
    on_exhaustion: policy.onExhaustion,
    backoff_strategy: policy.backoffStrategy,
  };
}

/** Reads the policy back from a stored job's `retry` (absent → defaults). */
export function retryPolicyFromJob(retry: RetryPolicyWire | undefined, maxAttempts?: number): Readonly<RetryPolicy> {
  const policy = resolveRetryPolicy(retry);
  return maxAttempts === undefined ? policy : { ...policy, maxAttempts };
}
