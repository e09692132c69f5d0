/**
 * The driver seam's admin section: per-queue configuration (backpressure bound, concurrency, retention) and
 * the types a bounded insert reports. Kept apart from the hot-path primitives in driver.ts; `Driver` extends it.
 */

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
  /** Most jobs of this queue active at once, across workers (stored for the claim; see spec/admin.md). */
  concurrency?: number;
  /** How long finished jobs of this queue are kept, in ms, per terminal outcome (stored for the pruner). */
  retention?: { completed_ms?: number; discarded_ms?: number; cancelled_ms?: number };
  updated_at: string;
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
export interface DriverQueueConfig {
  queueConfigGet(name: string): Promise<QueueConfigRecord | null>;
  /** Creates or replaces the queue's configuration (also registering the queue). */
  queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord>;
  queueConfigList(): Promise<QueueConfigRecord[]>;
}
