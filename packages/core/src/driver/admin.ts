/**
 * The driver seam's admin section: per-queue configuration (backpressure bound, concurrency, retention) and
 * the types a bounded insert reports. Kept apart from the hot-path primitives in driver.ts; `Driver` extends it.
 */
import type { AgeBoost } from '../priority/age-boost.js';
import type { QueueRateLimitWire } from '../rate-limit/policy.js';

/** A queue's stored configuration (admin `PUT /ojs/v1/admin/queues/:name/config`). Wire names, snake_case. */
export interface QueueConfigRecord {
  name: string;
  /**
   * Backpressure bound: the most jobs the queue may hold in the backlog states (`STATE_SETS.backlog`). An
   * insert that would go past it stores nothing and reports `queue_full`. Absent: unbounded.
   */
  max_depth?: number;
  /** Depth / bound from which successful enqueues carry `X-OJS-Queue-Pressure` (default 0.8). */
  warning_threshold?: number;
  /** `Retry-After` seconds a rejected producer is told to wait (default 1). */
  retry_after_seconds?: number;
  /** Most jobs of this queue active at once, across workers (enforced by the claim with `rate_limit.concurrency`: the smaller wins). */
  concurrency?: number;
  /** The queue-level limit every claim from the queue checks (spec/rate-limits.md). */
  rate_limit?: QueueRateLimitWire;
  /** How long finished jobs of this queue are kept, in ms, per terminal outcome (stored for the pruner). */
  retention?: { completed_ms?: number; discarded_ms?: number; cancelled_ms?: number };
  /**
   * Priority aging: the claim takes this queue's available jobs by `ageBoostRank` (priority/age-boost.ts) instead
   * of priority then FIFO. Absent: no aging.
   */
  age_boost?: AgeBoost;
  /**
   * `false`: the queue opts out of job history (spec/history.md H9): transitions of its jobs write no line, in
   * the same atomic step that would have written it. Absent or true: recorded (where the driver records any).
   */
  history?: boolean;
  updated_at: string;
}

/**
 * Whether transitions of a queue whose configuration is `record` write history lines (when the driver records
 * history at all): every queue does unless its configuration says `history: false`.
 * @example queueRecordsHistory({ name: 'bulk', history: false, updated_at }) // false
 */
export function queueRecordsHistory(record: Pick<QueueConfigRecord, 'history'> | null | undefined): boolean {
  return record?.history !== false;
}

/** Depth bounds of an insert, by queue name (from the queues' `max_depth`). */
export type DepthBounds = Readonly<Record<string, number>>;

/** An insert refused by a depth bound: nothing of it was stored. */
export interface QueueFullRejection {
  ok: false;
  /** The first job (0-based) that did not fit. */
  index: number;
  reason: 'queue_full';
  queue: string;
  /** The queue's backlog when the insert was refused. */
  depth: number;
  bound: number;
}

/** Queue configuration storage. Each call is atomic; configs of unknown queues may be stored (they apply once jobs come). */
export interface DriverQueueConfig extends DriverRateLimits {
  queueConfigGet(name: string): Promise<QueueConfigRecord | null>;
  /** Creates or replaces the queue's configuration (also registering the queue). */
  queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord>;
  queueConfigList(): Promise<QueueConfigRecord[]>;
}

/** What a store knows of a queue's rate limits right now (`GET /ojs/v1/admin/queues/:name/rate-limits`). */
export interface RateLimitState {
  /** The store's time (ms) when it answered: the clock the spacing is measured with. */
  now: number;
  /** The queue's last limited claim (ms, the store's time), or null when none is recorded. */
  lastClaimAt: number | null;
  /** The spacing that claim set, `1000 / max_per_second` ms, or null. */
  intervalMs: number | null;
  /** Active jobs of the queue. */
  queueActive: number;
  /** Each concurrency key used by the queue's jobs that has active jobs or waiting ones: active count and the limit the latest such job carried. */
  keys: Array<{ key: string; active: number; concurrency: number | null }>;
}

/** Reading rate-limit state: drivers with `capabilities.rateLimiting` implement it. */
export interface DriverRateLimits {
  rateLimitState?(params: { queue: string; now: number }): Promise<RateLimitState>;
}
