/**
 * What the memory driver's claim needs to enforce rate limits (core's rate-limit/rule.ts): each queue's last
 * limited claim, and the jobs holding each concurrency key. A key's count is derived from the jobs' states
 * whenever it is read (a member no longer `active`, or deleted, is dropped), so no exit from `active` has
 * to release anything and none can leak.
 */
import { STATE_ROLES, claimAllowed, claimIntervalMs, noteHeld, spacingWaitMs, type QueueClaimLimit, type RateLimitState } from '@ojskit/core/driver';
import type { JobEntry } from './job-entry.js';
import type { QueueState } from './queue-state.js';

const CLAIMED = STATE_ROLES.claimed;

/**
 * How many available jobs one step of a claim looks at for one it may take. A claim runs synchronously: a
 * queue whose head holds a million refused jobs would stall the process; jobs further back wait for the
 * head to drain (spec/rate-limits.md, R7).
 */
export const RATE_LIMIT_SCAN = 10_000;

export class MemoryRateLimits {
  /** Each queue's last limited claim and the spacing it kept. */
  private readonly windows = new Map<string, { at: number; intervalMs: number }>();
  /** Jobs claimed under each concurrency key, checked against their state when counted. */
  private readonly holders = new Map<string, Set<JobEntry>>();
  /** The concurrency keys each queue's jobs used, with the limit the latest one carried. */
  private readonly keysOf = new Map<string, Map<string, number>>();

  constructor(private readonly isStored: (entry: JobEntry) => boolean) {}

  /** Active jobs sharing `key`, dropping members that left `active`. */
  activeOf(key: string): number {
    const set = this.holders.get(key);
    if (set === undefined) return 0;
    for (const entry of set) if (entry.job.state !== CLAIMED || !this.isStored(entry)) set.delete(entry);
    if (set.size === 0) this.holders.delete(key);
    return set.size;
  }

  /** True when no limit can apply to this job of a queue with `queue` limits. */
  static unlimited(entry: JobEntry, queue: QueueClaimLimit): boolean {
    return entry.x.rateLimit === undefined && queue.intervalMs === undefined && queue.concurrency === undefined;
  }

  /** The claim's `held` hint so far (ClaimResult.held): set by `firstAllowed` when it refuses a job. */
  held: { retryInMs?: number } | undefined;

  /**
   * The first available job of `q`, in claim order (by `rank` when the queue ages), that the rule allows now (or that has expired: the claim
   * discards it), among the first `RATE_LIMIT_SCAN`. Each refusal is noted in `held`.
   */
  firstAllowed(q: QueueState, queue: QueueClaimLimit, now: number, rank?: (entry: JobEntry) => number): JobEntry | undefined {
    const window = this.windows.get(q.record.name);
    let scanned = 0;
    for (const entry of rank === undefined ? q.available.values() : q.available.valuesRanked(rank)) {
      if (++scanned > RATE_LIMIT_SCAN) return undefined;
      if (entry.x.expiresAt !== undefined && entry.x.expiresAt < now) return entry;
      const limit = entry.x.rateLimit;
      const allowed = claimAllowed(limit, queue, {
        now,
        ...(window !== undefined ? { lastClaimAt: window.at } : {}),
        keyActive: limit?.key !== undefined ? this.activeOf(limit.key) : 0,
        queueActive: q.counts[CLAIMED],
      });
      if (allowed) return entry;
      this.held = noteHeld(this.held, spacingWaitMs(limit, queue, now, window?.at));
    }
    return undefined;
  }

  /** Records the claim of a job the rule allowed. */
  claimed(entry: JobEntry, queue: QueueClaimLimit, now: number): void {
    const limit = entry.x.rateLimit;
    const interval = claimIntervalMs(limit, queue);
    const name = entry.job.queue;
    if (interval > 0) this.windows.set(name, { at: now, intervalMs: interval });
    if (limit?.key !== undefined) {
      let set = this.holders.get(limit.key);
      if (set === undefined) this.holders.set(limit.key, (set = new Set()));
      set.add(entry);
      let keys = this.keysOf.get(name);
      if (keys === undefined) this.keysOf.set(name, (keys = new Map()));
      keys.set(limit.key, limit.concurrency!);
    }
  }

  state(q: QueueState | undefined, name: string, now: number): RateLimitState {
    const window = this.windows.get(name);
    const keys = [...(this.keysOf.get(name) ?? [])].map(([key, concurrency]) => ({ key, active: this.activeOf(key), concurrency }));
    return {
      now,
      lastClaimAt: window?.at ?? null,
      intervalMs: window?.intervalMs ?? null,
      queueActive: q?.counts[CLAIMED] ?? 0,
      keys,
    };
  }

  clear(): void {
    this.windows.clear();
    this.holders.clear();
    this.keysOf.clear();
  }
}
