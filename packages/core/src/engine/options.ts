/** Engine configuration. */
import type { Clock } from '../clock.js';
import type { Driver } from '../driver/driver.js';

/** How often each background service runs (ms). Each run takes a lease, so several engines can share a store. */
export interface ServiceIntervals {
  /** scheduled/retryable → available. */
  promoteMs: number;
  /** Visibility deadlines, execution timeouts and dead workers. */
  rescueMs: number;
  /** expires_at sweeps. */
  expireMs: number;
  /** Cron firing. */
  cronMs: number;
  /** Retention pruning. */
  pruneMs: number;
}

/** How long finished jobs are kept before the pruner deletes them (ms). */
export interface Retention {
  completedMs: number;
  cancelledMs: number;
  discardedMs: number;
  deadLetterMs: number;
}

export interface EngineOptions {
  driver: Driver;
  /** Time source; inject a `ManualClock` in tests. */
  clock?: Clock;
  /** Source of jitter in [0, 1). */
  random?: () => number;
  /** Default reservation after a claim (protocol default 1 800 000). */
  visibilityTimeoutMs?: number;
  /** Default execution limit per attempt (protocol default 1 800 000). */
  executionTimeoutMs?: number;
  /** A worker silent for this long after a heartbeat is declared dead (default 30 000). */
  workerDeathMs?: number;
  /** Most jobs one FETCH may return (default 1 000). */
  maxFetchCount?: number;
  /** Most jobs one batch enqueue may carry (default 10 000). */
  maxBatchSize?: number;
  /** Events kept for polling (default 10 000). */
  eventBufferSize?: number;
  /**
   * How long an event from a transport may wait for the job event it follows when another process published
   * that one and it has not arrived yet (default 50 ms). Keep it above the driver's event publish delay.
   */
  eventOrderWindowMs?: number;
  services?: Partial<ServiceIntervals>;
  retention?: Partial<Retention>;
  /** Identifies this engine when it takes leases; defaults to a random id. */
  instanceId?: string;
  /** Reported in the manifest. */
  implementation?: { name: string; version: string; homepage?: string };
}

export const DEFAULT_SERVICE_INTERVALS: ServiceIntervals = {
  promoteMs: 200,
  rescueMs: 500,
  expireMs: 1_000,
  cronMs: 1_000,
  pruneMs: 60_000,
};

export const DEFAULT_RETENTION: Retention = {
  completedMs: 24 * 3_600_000,
  cancelledMs: 24 * 3_600_000,
  discardedMs: 7 * 24 * 3_600_000,
  deadLetterMs: 180 * 24 * 3_600_000,
};
