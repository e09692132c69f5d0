/**
 * The claim rule of rate limits, written once: memory runs it, the Redis claim script and the PostgreSQL
 * claim statement render the same arithmetic (spec/rate-limits.md, "The rule").
 */
import { intervalMsOf, type ClaimLimit, type QueueRateLimitWire } from './policy.js';

/** A queue's own limit, from its configuration. */
export interface QueueClaimLimit {
  /** `1000 / rate_limit.max_per_second`. */
  intervalMs?: number;
  /** The smaller of `rate_limit.concurrency` and the configuration's top-level `concurrency`. */
  concurrency?: number;
}

/** The queue-level limit a configuration (`QueueConfigRecord`) sets (empty when it sets none). */
export function queueClaimLimitOf(record: { rate_limit?: QueueRateLimitWire; concurrency?: number } | null | undefined): QueueClaimLimit {
  const limit: QueueClaimLimit = {};
  if (record == null) return limit;
  const perSecond = record.rate_limit?.max_per_second;
  if (perSecond !== undefined) limit.intervalMs = intervalMsOf(perSecond);
  const k = [record.rate_limit?.concurrency, record.concurrency].filter((n): n is number => n !== undefined);
  if (k.length > 0) limit.concurrency = Math.min(...k);
  return limit;
}

/** The spacing a claim of this job keeps from the queue's last limited claim: the larger of both limits (0: none). */
export function claimIntervalMs(job: ClaimLimit | undefined, queue: QueueClaimLimit): number {
  return Math.max(job?.intervalMs ?? 0, queue.intervalMs ?? 0);
}

/** How long until the spacing lets a claim take this job (0: it does now, or no spacing holds it). */
export function spacingWaitMs(job: ClaimLimit | undefined, queue: QueueClaimLimit, now: number, lastClaimAt: number | undefined): number {
  const interval = claimIntervalMs(job, queue);
  if (interval <= 0 || lastClaimAt === undefined) return 0;
  return Math.max(0, lastClaimAt + interval - now);
}

/** Folds one refusal into a claim's `held` hint: the soonest a spacing ends (concurrency alone leaves it unset). */
export function noteHeld(held: { retryInMs?: number } | undefined, waitMs: number): { retryInMs?: number } {
  const next = held ?? {};
  if (waitMs > 0 && (next.retryInMs === undefined || waitMs < next.retryInMs)) next.retryInMs = waitMs;
  return next;
}

/** What the claim knows when it considers one available job. */
export interface ClaimLimitState {
  /** The store's time (ms). */
  now: number;
  /** When the queue's last limited claim happened (ms, the store's time); absent when never. */
  lastClaimAt?: number;
  /** Active jobs sharing the job's key (`job.key`), counting the ones this claim took already. */
  keyActive: number;
  /** Active jobs of the queue, counting the ones this claim took already. */
  queueActive: number;
}

/**
 * Whether a claim may take the job now. Every limit that applies must allow it:
 * - spacing: `interval = claimIntervalMs(job, queue)`; when > 0, `lastClaimAt` is absent or
 *   `now − lastClaimAt ≥ interval` (a GCRA with a burst of one; a claim that passes sets `lastClaimAt = now`);
 * - the job's concurrency: `keyActive < job.concurrency`;
 * - the queue's concurrency: `queueActive < queue.concurrency`.
 * A job it refuses stays `available` where it is; the claim goes on with the jobs behind it.
 * @example claimAllowed({ intervalMs: 1000 }, {}, { now: 1500, lastClaimAt: 1000, keyActive: 0, queueActive: 0 }) // false
 */
export function claimAllowed(job: ClaimLimit | undefined, queue: QueueClaimLimit, state: ClaimLimitState): boolean {
  const interval = claimIntervalMs(job, queue);
  if (interval > 0 && state.lastClaimAt !== undefined && state.now - state.lastClaimAt < interval) return false;
  if (job?.concurrency !== undefined && state.keyActive >= job.concurrency) return false;
  if (queue.concurrency !== undefined && state.queueActive >= queue.concurrency) return false;
  return true;
}
