/**
 * Rate limits as the protocol spells them (`options.rate_limit` on a job, `rate_limit` in a queue's
 * configuration) and the record every driver's claim reads (`ClaimLimit`). Requests are validated by
 * schemas/rate-limit.ts; the claim rule is in rule.ts; spec/rate-limits.md explains all three.
 */

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
