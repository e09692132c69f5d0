/** Retry and unique policies: camelCase in the SDK, snake_case objects on the wire. */
import type { JobState, RetryPolicyWire } from '@ojskit/core';
import type { RetryPolicy } from '@ojskit/core/schemas';
import { durationFromWire, durationToWire, type DurationInput } from './time.js';

/** Backoff strategies the protocol names. */
export type BackoffStrategy = RetryPolicyWire['backoff_strategy'];

/** A retry policy as callers write it; every field is optional and merged with the server's defaults. */
export interface RetryPolicyInput {
  /** Total attempts including the first (default 3; 0 or 1 = never retry). */
  maxAttempts?: number;
  /** Delay before the first retry: ms or an ISO 8601 duration (default 1 s). */
  initialInterval?: DurationInput;
  /** Growth factor between retries (default 2). */
  backoffCoefficient?: number;
  /** Cap on any single delay: ms or an ISO 8601 duration (default 5 min). */
  maxInterval?: DurationInput;
  /** Randomise each delay by ×[0.5, 1.5) (default true). */
  jitter?: boolean;
  /** Error types/codes that discard at once: exact, `prefix.*`, or an anchored pattern. */
  nonRetryableErrors?: string[];
  /** What to do after the last attempt: `discard` (default) or `dead_letter`. */
  onExhaustion?: 'discard' | 'dead_letter';
  backoffStrategy?: BackoffStrategy;
}

/** The effective retry policy a job carries, intervals in ms: core's own type, not a copy of it. */
export type { RetryPolicy } from '@ojskit/core/schemas';

/** The wire object for `options.retry`. */
export function retryPolicyToWire(policy: RetryPolicyInput): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (policy.maxAttempts !== undefined) wire.max_attempts = policy.maxAttempts;
  if (policy.initialInterval !== undefined) wire.initial_interval = durationToWire(policy.initialInterval);
  if (policy.backoffCoefficient !== undefined) wire.backoff_coefficient = policy.backoffCoefficient;
  if (policy.maxInterval !== undefined) wire.max_interval = durationToWire(policy.maxInterval);
  if (policy.jitter !== undefined) wire.jitter = policy.jitter;
  if (policy.nonRetryableErrors !== undefined) wire.non_retryable_errors = policy.nonRetryableErrors;
  if (policy.onExhaustion !== undefined) wire.on_exhaustion = policy.onExhaustion;
  if (policy.backoffStrategy !== undefined) wire.backoff_strategy = policy.backoffStrategy;
  return wire;
}

/** The policy echoed on a job, intervals read back into ms. */
export function retryPolicyFromWire(wire: RetryPolicyWire): RetryPolicy {
  return {
    maxAttempts: wire.max_attempts,
    initialIntervalMs: durationFromWire(wire.initial_interval) ?? Number.NaN,
    backoffCoefficient: wire.backoff_coefficient,
    maxIntervalMs: durationFromWire(wire.max_interval) ?? Number.NaN,
    jitter: wire.jitter,
    nonRetryableErrors: [...wire.non_retryable_errors],
    onExhaustion: wire.on_exhaustion,
    backoffStrategy: wire.backoff_strategy,
  };
}

/** What happens when an enqueue meets an existing job with the same unique key. */
export type UniqueConflict = 'reject' | 'replace' | 'replace_except_schedule' | 'ignore';

/** A unique policy: at most one job per fingerprint among jobs in `states`, optionally within `period`. */
export interface UniquePolicyInput {
  /** Fingerprint dimensions (default `type` + `args`); `type` is always included. */
  keys?: Array<'type' | 'queue' | 'args' | 'meta'>;
  /** Only these top-level keys of object-valued args count. */
  argsKeys?: string[];
  /** Meta keys that count (required when `meta` is a dimension). */
  metaKeys?: string[];
  /** Window measured from the existing job's creation: ms or an ISO 8601 duration. */
  period?: DurationInput;
  /** States in which an existing job blocks a new one. */
  states?: JobState[];
  /** Default `reject` (the enqueue fails with a `duplicate` error). */
  onConflict?: UniqueConflict;
}

/** The wire object for `options.unique`. */
export function uniquePolicyToWire(policy: UniquePolicyInput): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (policy.keys !== undefined) wire.keys = policy.keys;
  if (policy.argsKeys !== undefined) wire.args_keys = policy.argsKeys;
  if (policy.metaKeys !== undefined) wire.meta_keys = policy.metaKeys;
  if (policy.period !== undefined) wire.period = durationToWire(policy.period);
  if (policy.states !== undefined) wire.states = policy.states;
  if (policy.onConflict !== undefined) wire.on_conflict = policy.onConflict;
  return wire;
}

/** A unique policy echoed on a job (the legacy `key` form reads as `argsKeys`). */
export function uniquePolicyFromWire(wire: Record<string, unknown>): UniquePolicyInput {
  const policy: UniquePolicyInput = {};
  if (Array.isArray(wire.keys)) policy.keys = wire.keys as UniquePolicyInput['keys'];
  const argsKeys = wire.args_keys ?? wire.key;
  if (Array.isArray(argsKeys)) policy.argsKeys = argsKeys as string[];
  if (Array.isArray(wire.meta_keys)) policy.metaKeys = wire.meta_keys as string[];
  if (typeof wire.period === 'string') policy.period = wire.period;
  if (Array.isArray(wire.states)) policy.states = wire.states as JobState[];
  if (typeof wire.on_conflict === 'string') {
    policy.onConflict = (wire.on_conflict === 'use_existing' ? 'ignore' : wire.on_conflict) as UniqueConflict;
  }
  return policy;
}
