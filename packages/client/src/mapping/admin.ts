/** Admin, bulk and backpressure shapes: the wire's snake_case read into the SDK's camelCase (and back). */
import type * as W from '@ojskit/core';
import type { JobState, OjsErrorBody } from '@ojskit/core';
import { jobFromWire, type Job } from './job.js';
import { timeFromWire } from './time.js';

/** A worker as the admin API reports it. */
export interface WorkerInfo {
  id: string;
  /** What the worker last reported. */
  state: string;
  /** What an operator asked of it (delivered on its next heartbeat). */
  directive: 'running' | 'quiet' | 'terminate';
  activeJobs: number;
  activeJobIds: string[];
  lastHeartbeatAt: Date;
  /** Silent longer than the server's worker-death time. */
  stale: boolean;
  hostname?: string;
  pid?: number;
  queues?: string[];
  concurrency?: number;
}

/** Worker counts (the same names on the wire and here). */
export type WorkerSummary = W.WorkerSummary;

/** One page of an admin listing. */
export interface AdminPage {
  total: number;
  page: number;
  perPage: number;
}

export interface AdminStats {
  queues: number;
  /** Live (not stale) workers. */
  workers: number;
  workerSummary: WorkerSummary;
  jobs: Record<JobState, number>;
  throughput?: { processedPerMinute: number; failedPerMinute: number };
  uptimeSeconds: number;
}

/** A queue's configuration (backpressure extension, plus concurrency and retention). */
export interface QueueConfig {
  /** Most waiting jobs (available, scheduled, retryable, pending); `null`: unbounded. */
  maxDepth: number | null;
  /** Depth / bound from which enqueues report pressure (0..1). */
  warningThreshold: number;
  /** Seconds a refused producer is told to wait. */
  retryAfterSeconds: number;
  concurrency: number | null;
  /** The queue-level rate limit every claim from the queue checks; `null` when none. */
  rateLimit: { maxPerSecond: number | null; concurrency: number | null } | null;
  retention: { completedMs?: number; discardedMs?: number; cancelledMs?: number };
  /** Priority aging: claims take jobs by enqueued ms − priority × `intervalMs`, smallest first; `null`: priority then FIFO. */
  ageBoost: { intervalMs: number } | null;
  /** Whether transitions of the queue's jobs are recorded (`client.history`); `false`: the queue opted out, or the backend records none. */
  history: boolean;
  updatedAt: Date | null;
}

/** What `Queues.configure` takes; anything left out is unset (the configuration is replaced whole). */
export type QueueConfigInput = Partial<
  Pick<QueueConfig, 'maxDepth' | 'warningThreshold' | 'retryAfterSeconds' | 'concurrency' | 'retention' | 'ageBoost' | 'history'>
> & {
  rateLimit?: { maxPerSecond?: number; concurrency?: number };
};

/** Where a queue's rate limits stand (`client.queues.rateLimits`). */
export interface QueueRateLimits {
  queue: string;
  /** The store's clock when it answered (spacing is measured with it). */
  now: Date;
  queueLimit: { maxPerSecond: number | null; concurrency: number | null };
  /** The last limited claim, the spacing it set, and the earliest time of the next one. */
  window: { lastClaimAt: Date | null; intervalMs: number | null; nextAllowedAt: Date | null };
  /** Active jobs of the queue. */
  active: number;
  /** Jobs in flight per concurrency key, with the limit its jobs carry. */
  keys: Array<{ key: string; active: number; concurrency: number | null }>;
}

export function queueRateLimitsFromWire(wire: W.QueueRateLimitsResponse): QueueRateLimits {
  return {
    queue: wire.queue,
    now: timeFromWire(wire.now)!,
    queueLimit: { maxPerSecond: wire.queue_limit.max_per_second, concurrency: wire.queue_limit.concurrency },
    window: {
      lastClaimAt: timeFromWire(wire.window.last_claim_at) ?? null,
      intervalMs: wire.window.interval_ms,
      nextAllowedAt: timeFromWire(wire.window.next_allowed_at) ?? null,
    },
    active: wire.active,
    keys: wire.keys.map((k) => ({ ...k })),
  };
}

/** Jobs an admin listing or a bulk action selects; `since`/`until` bound creation time. */
export interface JobFilter {
  queue?: string;
  state?: JobState;
  type?: string;
  since?: Date;
  until?: Date;
}

/** Per-item outcome of a bulk enqueue. */
export type BulkEnqueueItem = { index: number; status: 'created' | 'duplicate'; job: Job } | { index: number; status: 'failed'; error: OjsErrorBody };

export interface BulkEnqueueResult {
  total: number;
  succeeded: number;
  failed: number;
  items: BulkEnqueueItem[];
}

/** Per-job outcome of a bulk cancel, retry or delete. */
export interface BulkJobItem {
  jobId: string;
  status: 'cancelled' | 'retried' | 'deleted' | 'skipped' | 'failed';
  reason?: string;
  error?: OjsErrorBody;
}

export interface BulkJobResult {
  succeeded: number;
  skipped: number;
  failed: number;
  items: BulkJobItem[];
}

export function workerFromWire(wire: W.AdminWorker): WorkerInfo {
  const worker: WorkerInfo = {
    id: wire.id,
    state: wire.state,
    directive: wire.directive,
    activeJobs: wire.active_jobs,
    activeJobIds: wire.active_job_ids ?? [],
    lastHeartbeatAt: timeFromWire(wire.last_heartbeat_at) ?? new Date(0),
    stale: wire.stale,
  };
  if (wire.hostname !== undefined) worker.hostname = wire.hostname;
  if (wire.pid !== undefined) worker.pid = wire.pid;
  if (wire.queues !== undefined) worker.queues = wire.queues;
  if (wire.concurrency !== undefined) worker.concurrency = wire.concurrency;
  return worker;
}

export function adminPageFromWire(wire: W.AdminPagination): AdminPage {
  return { total: wire.total, page: wire.page, perPage: wire.per_page };
}

export function adminStatsFromWire(wire: W.AdminStatsResponse): AdminStats {
  const stats: AdminStats = {
    queues: wire.queues,
    workers: wire.workers,
    workerSummary: wire.worker_summary,
    jobs: wire.jobs,
    uptimeSeconds: wire.uptime_seconds,
  };
  if (wire.throughput) stats.throughput = { processedPerMinute: wire.throughput.processed_per_minute, failedPerMinute: wire.throughput.failed_per_minute };
  return stats;
}

export function queueConfigFromWire(wire: W.QueueConfigResponse): QueueConfig {
  const r = wire.retention ?? {};
  const retention: QueueConfig['retention'] = {};
  if (r.completed_ms !== undefined) retention.completedMs = r.completed_ms;
  if (r.discarded_ms !== undefined) retention.discardedMs = r.discarded_ms;
  if (r.cancelled_ms !== undefined) retention.cancelledMs = r.cancelled_ms;
  return {
    maxDepth: wire.backpressure.max_depth,
    warningThreshold: wire.backpressure.warning_threshold,
    retryAfterSeconds: wire.backpressure.retry_after_seconds,
    concurrency: wire.concurrency,
    rateLimit: wire.rate_limit ? { maxPerSecond: wire.rate_limit.max_per_second, concurrency: wire.rate_limit.concurrency } : null,
    retention,
    ageBoost: wire.age_boost ? { intervalMs: wire.age_boost.interval_ms } : null,
    history: wire.history,
    updatedAt: timeFromWire(wire.updated_at) ?? null,
  };
}

export function queueConfigToWire(input: QueueConfigInput): Record<string, unknown> {
  const backpressure: Record<string, unknown> = {};
  if (input.maxDepth !== undefined) backpressure.max_depth = input.maxDepth;
  if (input.warningThreshold !== undefined) backpressure.warning_threshold = input.warningThreshold;
  if (input.retryAfterSeconds !== undefined) backpressure.retry_after_seconds = input.retryAfterSeconds;
  const wire: Record<string, unknown> = { backpressure };
  if (input.concurrency !== undefined) wire.concurrency = input.concurrency;
  if (input.rateLimit !== undefined) {
    const { maxPerSecond, concurrency } = input.rateLimit;
    wire.rate_limit = { ...(maxPerSecond !== undefined ? { max_per_second: maxPerSecond } : {}), ...(concurrency !== undefined ? { concurrency } : {}) };
  }
  if (input.retention !== undefined) {
    const { completedMs, discardedMs, cancelledMs } = input.retention;
    wire.retention = {
      ...(completedMs !== undefined ? { completed_ms: completedMs } : {}),
      ...(discardedMs !== undefined ? { discarded_ms: discardedMs } : {}),
      ...(cancelledMs !== undefined ? { cancelled_ms: cancelledMs } : {}),
    };
  }
  if (input.ageBoost !== undefined) wire.age_boost = input.ageBoost === null ? null : { interval_ms: input.ageBoost.intervalMs };
  if (input.history !== undefined) wire.history = input.history;
  return wire;
}

export function jobFilterToWire(filter: JobFilter): Record<string, string> {
  const wire: Record<string, string> = {};
  if (filter.queue !== undefined) wire.queue = filter.queue;
  if (filter.state !== undefined) wire.state = filter.state;
  if (filter.type !== undefined) wire.type = filter.type;
  if (filter.since !== undefined) wire.since = filter.since.toISOString();
  if (filter.until !== undefined) wire.until = filter.until.toISOString();
  return wire;
}

export function bulkEnqueueFromWire(wire: W.BulkEnqueueResponse): BulkEnqueueResult {
  return {
    total: wire.total,
    succeeded: wire.succeeded,
    failed: wire.failed,
    items: wire.items.map((item) => (item.status === 'failed' ? item : { index: item.index, status: item.status, job: jobFromWire(item.job) })),
  };
}

export function bulkJobsFromWire(wire: W.BulkJobResponse): BulkJobResult {
  return {
    succeeded: wire.succeeded,
    skipped: wire.skipped,
    failed: wire.failed,
    items: wire.items.map((item) => {
      const out: BulkJobItem = { jobId: item.job_id, status: item.status };
      if (item.reason !== undefined) out.reason = item.reason;
      if (item.error !== undefined) out.error = item.error;
      return out;
    }),
  };
}
