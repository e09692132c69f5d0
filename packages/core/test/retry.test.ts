import { describe, expect, it } from 'vitest';
import { matchesNonRetryable } from '../src/retry/non-retryable.js';
import { DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelayMs, retryPolicyFromJob, retryPolicyToWire, type RetryPolicy } from '../src/entries/schemas.js';
import { expectOjsError } from './expect-ojs-error.js';

const policy = (over: Partial<RetryPolicy>): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, jitter: false, nonRetryableErrors: [], ...over });

describe('resolveRetryPolicy', () => {
  it('has the protocol defaults', () => {
    const expected: RetryPolicy = {
      maxAttempts: 3,
      initialIntervalMs: 1_000,
      backoffCoefficient: 2,
      maxIntervalMs: 300_000,
      jitter: true,
      nonRetryableErrors: [],
      onExhaustion: 'discard',
      backoffStrategy: 'exponential',
    };
    expect(resolveRetryPolicy(undefined)).toEqual(expected);
    expect(resolveRetryPolicy(null)).toEqual(expected);
    expect(resolveRetryPolicy({})).toEqual(expected);
  });

  it('returns defaults no caller can change (they are shared, so they are frozen)', () => {
    expect(() => resolveRetryPolicy(undefined).nonRetryableErrors.push('x')).toThrow(TypeError);
    expect(() => {
      (resolveRetryPolicy(undefined) as { maxAttempts: number }).maxAttempts = 9;
    }).toThrow(TypeError);
    expect(resolveRetryPolicy(undefined).nonRetryableErrors).toEqual([]);
    expect(resolveRetryPolicy(undefined).maxAttempts).toBe(3);
  });

  it('merges a partial policy field by field', () => {
    expect(resolveRetryPolicy({ max_attempts: 10, initial_interval: 'PT2S', jitter: false })).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 10,
      initialIntervalMs: 2_000,
      jitter: false,
      nonRetryableErrors: [],
    });
    const full = resolveRetryPolicy({
      max_attempts: 0,
      initial_interval: 'PT0.5S',
      backoff_coefficient: 1.5,
      max_interval: 'PT1M',
      jitter: false,
      non_retryable_errors: ['auth.*'],
      on_exhaustion: 'dead_letter',
      backoff_strategy: 'linear',
    });
    expect(full).toEqual({
      maxAttempts: 0,
      initialIntervalMs: 500,
      backoffCoefficient: 1.5,
      maxIntervalMs: 60_000,
      jitter: false,
      nonRetryableErrors: ['auth.*'],
      onExhaustion: 'dead_letter',
      backoffStrategy: 'linear',
    });
  });

  it('accepts backoff_type as an alias and every named strategy', () => {
    expect(resolveRetryPolicy({ backoff_type: 'polynomial' }).backoffStrategy).toBe('polynomial');
    for (const s of ['exponential', 'linear', 'constant', 'none', 'polynomial']) {
      expect(resolveRetryPolicy({ backoff_strategy: s }).backoffStrategy).toBe(s);
    }
  });

  it('coefficient 0 (or omitted) means the default 2.0; exactly 1.0 is allowed', () => {
    expect(resolveRetryPolicy({ backoff_coefficient: 0 }).backoffCoefficient).toBe(2);
    expect(resolveRetryPolicy({ backoff_coefficient: 1 }).backoffCoefficient).toBe(1);
  });

  it('max_interval equal to initial_interval is allowed', () => {
    expect(resolveRetryPolicy({ initial_interval: 'PT10S', max_interval: 'PT10S' }).maxIntervalMs).toBe(10_000);
  });

  it.each<[string, Record<string, unknown>]>([
    ['max_interval < initial_interval', { initial_interval: 'PT10S', max_interval: 'PT5S' }],
    ['coefficient < 1', { backoff_coefficient: 0.5 }],
    ['negative coefficient', { backoff_coefficient: -2 }],
    ['non-numeric coefficient', { backoff_coefficient: '2' }],
    ['unknown strategy', { backoff_strategy: 'fibonacci' }],
    ['unknown backoff_type', { backoff_type: 'fibonacci' }],
    ['negative max_attempts', { max_attempts: -1 }],
    ['fractional max_attempts', { max_attempts: 2.5 }],
    ['malformed initial_interval', { initial_interval: 'one second' }],
    ['zero initial_interval', { initial_interval: 'PT0S' }],
    ['numeric initial_interval', { initial_interval: 1000 }],
    ['malformed max_interval', { max_interval: 'P' }],
    ['non-boolean jitter', { jitter: 1 }],
    ['non-string non_retryable_errors', { non_retryable_errors: ['a', 2] }],
    ['non-array non_retryable_errors', { non_retryable_errors: 'a' }],
    ['bad on_exhaustion', { on_exhaustion: 'retry' }],
  ])('%s → 422 validation_error', (_label, input) => {
    const err = expectOjsError(() => resolveRetryPolicy(input), 'validation_error', 422);
    expect(err.type).toBe('validation_error');
    expect(String(err.details?.field)).toMatch(/^retry\./);
  });

  it('rejects a non-object policy with 422', () => {
    expectOjsError(() => resolveRetryPolicy('fast'), 'validation_error', 422);
    expectOjsError(() => resolveRetryPolicy([1]), 'validation_error', 422);
  });

  it('wire form round-trips', () => {
    const p = resolveRetryPolicy({ max_attempts: 4, initial_interval: 'PT1.5S', max_interval: 'PT2M', backoff_strategy: 'polynomial' });
    const wire = retryPolicyToWire(p);
    expect(wire).toMatchObject({ initial_interval: 'PT1.5S', max_interval: 'PT2M', backoff_strategy: 'polynomial' });
    expect(retryPolicyFromJob(wire)).toEqual(p);
    expect(retryPolicyFromJob(wire, 9).maxAttempts).toBe(9);
    expect(retryPolicyFromJob(undefined)).toEqual(resolveRetryPolicy(undefined));
  });
});

describe('retryDelayMs without jitter', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [9, 256_000],
    [10, 300_000],
    [50, 300_000],
  ])('exponential (I=1s, C=2, M=5m) retry %i → %i ms', (n, ms) => {
    expect(retryDelayMs(policy({}), n)).toBe(ms);
  });

  it('linear is I·n, capped', () => {
    const p = policy({ backoffStrategy: 'linear', initialIntervalMs: 2_000, maxIntervalMs: 7_000 });
    expect([1, 2, 3, 4].map((n) => retryDelayMs(p, n))).toEqual([2_000, 4_000, 6_000, 7_000]);
  });

  it('constant and none are I', () => {
    for (const backoffStrategy of ['constant', 'none'] as const) {
      const p = policy({ backoffStrategy, initialIntervalMs: 1_500 });
      expect([1, 2, 5].map((n) => retryDelayMs(p, n))).toEqual([1_500, 1_500, 1_500]);
    }
  });

  it('polynomial is I·n^C, capped', () => {
    const p = policy({ backoffStrategy: 'polynomial', initialIntervalMs: 1_000, backoffCoefficient: 2, maxIntervalMs: 20_000 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(p, n))).toEqual([1_000, 4_000, 9_000, 16_000, 20_000]);
  });

  it('coefficient 1.0 with the default strategy gives constant delays', () => {
    const p = policy({ backoffCoefficient: 1 });
    expect([1, 2, 3, 7].map((n) => retryDelayMs(p, n))).toEqual([1_000, 1_000, 1_000, 1_000]);
  });

  it('returns integer milliseconds', () => {
    const p = policy({ initialIntervalMs: 1_000, backoffCoefficient: 1.5 });
    expect(retryDelayMs(p, 3)).toBe(2_250);
    expect(Number.isInteger(retryDelayMs(policy({ initialIntervalMs: 333, backoffCoefficient: 1.7 }), 4))).toBe(true);
  });
});

describe('retryDelayMs with jitter', () => {
  const jittered = policy({ jitter: true });

  it('multiplies the capped delay by U[0.5, 1.5)', () => {
    expect(retryDelayMs(jittered, 3, () => 0)).toBe(2_000);
    expect(retryDelayMs(jittered, 3, () => 0.5)).toBe(4_000);
    expect(retryDelayMs(jittered, 3, () => 0.999_999)).toBe(6_000);
  });

  it('stays within [0.5·d, 1.5·d] for any random value', () => {
    for (let r = 0; r < 1; r += 0.05) {
      const d = retryDelayMs(jittered, 2, () => r);
      expect(d).toBeGreaterThanOrEqual(1_000);
      expect(d).toBeLessThanOrEqual(3_000);
    }
  });

  it('never exceeds max_interval after jitter', () => {
    const p = policy({ jitter: true, maxIntervalMs: 10_000 });
    expect(retryDelayMs(p, 20, () => 0.999)).toBe(10_000);
    expect(retryDelayMs(p, 20, () => 0)).toBe(5_000);
  });

  it('uses the injected random only when jitter is on', () => {
    let calls = 0;
    retryDelayMs(policy({}), 2, () => {
      calls++;
      return 0;
    });
    expect(calls).toBe(0);
  });
});

describe('matchesNonRetryable', () => {
  it('matches exactly on type, code or details.error_class', () => {
    expect(matchesNonRetryable(['ValidationError'], ['ValidationError'])).toBe(true);
    expect(matchesNonRetryable(['bad_input'], ['handler_error', 'bad_input'])).toBe(true);
    expect(matchesNonRetryable(['ValidationError'], ['Validation'])).toBe(false);
    expect(matchesNonRetryable([], ['anything'])).toBe(false);
  });

  it('treats a trailing .* as a prefix', () => {
    expect(matchesNonRetryable(['auth.*'], ['auth.token_expired'])).toBe(true);
    expect(matchesNonRetryable(['auth.*'], ['author'])).toBe(true); // the anchored regex reading also matches
    expect(matchesNonRetryable(['auth.*'], ['oauth.token_expired'])).toBe(false);
  });

  it('treats entries as anchored regular expressions', () => {
    expect(matchesNonRetryable(['Auth.*'], ['AuthenticationError'])).toBe(true);
    expect(matchesNonRetryable(['Auth'], ['AuthenticationError'])).toBe(false);
    expect(matchesNonRetryable(['Error'], ['MyError'])).toBe(false);
    expect(matchesNonRetryable(['(Timeout|Network)Error'], ['NetworkError'])).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(matchesNonRetryable(['auth.*'], ['Auth.token'])).toBe(false);
    expect(matchesNonRetryable(['validationerror'], ['ValidationError'])).toBe(false);
  });

  it('ignores invalid regular expressions instead of throwing', () => {
    expect(matchesNonRetryable(['(unclosed'], ['(unclosed'])).toBe(true);
    expect(matchesNonRetryable(['(unclosed'], ['unclosed'])).toBe(false);
  });

  it('skips missing or empty candidates', () => {
    expect(matchesNonRetryable(['.*'], [undefined, ''])).toBe(false);
  });
});
