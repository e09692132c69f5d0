/** The claim rule of rate limits (rate-limit/rule.ts), which memory runs and PostgreSQL's limited claim calls. */
import { describe, expect, it } from 'vitest';
import { claimAllowed, claimIntervalMs, claimLimitOf, queueClaimLimitOf } from '../src/entries/driver.js';

const idle = { now: 10_000, keyActive: 0, queueActive: 0 };

describe('claimAllowed', () => {
  it('spaces limited claims of a queue by the larger of the job and queue intervals', () => {
    const job = claimLimitOf({ max_per_second: 2 }, 'q');
    expect(job).toEqual({ intervalMs: 500 });
    expect(claimAllowed(job, {}, { ...idle })).toBe(true);
    expect(claimAllowed(job, {}, { ...idle, lastClaimAt: 9_600 })).toBe(false);
    expect(claimAllowed(job, {}, { ...idle, lastClaimAt: 9_500 })).toBe(true);
    expect(claimIntervalMs(job, { intervalMs: 1_000 })).toBe(1_000);
    expect(claimAllowed(job, { intervalMs: 1_000 }, { ...idle, lastClaimAt: 9_500 })).toBe(false);
    // a job without a limit in a queue without one is not spaced
    expect(claimAllowed(undefined, {}, { ...idle, lastClaimAt: 9_999 })).toBe(true);
  });

  it('holds a job while its key or its queue is at its concurrency; the key defaults to the queue', () => {
    const job = claimLimitOf({ concurrency: 2 }, 'emails');
    expect(job).toEqual({ concurrency: 2, key: 'emails' });
    expect(claimAllowed(job, {}, { ...idle, keyActive: 1 })).toBe(true);
    expect(claimAllowed(job, {}, { ...idle, keyActive: 2 })).toBe(false);
    expect(claimAllowed(undefined, { concurrency: 3 }, { ...idle, queueActive: 3 })).toBe(false);
    expect(claimAllowed(job, { concurrency: 3 }, { ...idle, keyActive: 1, queueActive: 3 })).toBe(false);
  });

  it("reads a queue's limit from its configuration; the smaller concurrency wins", () => {
    expect(queueClaimLimitOf(null)).toEqual({});
    expect(queueClaimLimitOf({ concurrency: 4, rate_limit: { concurrency: 2, max_per_second: 4 } })).toEqual({ concurrency: 2, intervalMs: 250 });
    expect(queueClaimLimitOf({ concurrency: 4 })).toEqual({ concurrency: 4 });
  });
});
