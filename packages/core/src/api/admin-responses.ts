/** Wire shapes of the admin-api, bulk-operations and backpressure extensions (snake_case, as served). */
import type { OjsErrorBody } from '../errors/ojs-error.js';
import type { Job } from '../schemas/job.js';
import type { StateCounts, WorkerDirective } from './responses.js';

/** Admin pagination: 1-based pages. */
export interface AdminPagination {
  total: number;
  page: number;
  per_page: number;
}

/** A worker as the admin API lists it. */
export interface AdminWorker {
  id: string;
  /** What the worker last reported (`running`, `quiet`, `terminate`, …). */
  state: string;
  /** What an operator asked of it; delivered on its next heartbeat. */
  directive: WorkerDirective;
  /** How many jobs it reported holding. */
  active_jobs: number;
  active_job_ids: string[];
  last_heartbeat_at: string;
  /** Silent for longer than the engine's worker-death time. */
  stale: boolean;
  hostname?: string;
  pid?: number;
  queues?: string[];
  concurrency?: number;
  labels?: Record<string, unknown>;
}

/** Worker counts: every known worker, live ones by reported state, and the stale ones. */
export interface WorkerSummary {
  total: number;
  running: number;
  quiet: number;
  terminate: number;
  stale: number;
}

export interface AdminWorkerListResponse {
  items: AdminWorker[];
  summary: WorkerSummary;
  pagination: AdminPagination;
}

export interface WorkerDirectiveResponse {
  worker_id: string;
  state: WorkerDirective;
  directive: WorkerDirective;
}

export interface AdminStatsResponse {
  queues: number;
  /** Live (not stale) workers: the protocol's number. */
  workers: number;
  worker_summary: WorkerSummary;
  jobs: StateCounts;
  throughput?: { processed_per_minute: number; failed_per_minute: number };
  uptime_seconds: number;
}

export interface AdminJobListResponse {
  items: Job[];
  pagination: AdminPagination;
}

/** A queue's configuration as served (backpressure extension plus ojskit's concurrency and retention). */
export interface QueueConfigResponse {
  queue: string;
  backpressure: { max_depth: number | null; strategy: 'reject'; warning_threshold: number; retry_after_seconds: number };
  concurrency: number | null;
  /** The queue-level rate limit every claim from the queue checks (spec/rate-limits.md); null when none. */
  rate_limit: { max_per_second: number | null; concurrency: number | null } | null;
  retention: { completed_ms?: number; discarded_ms?: number; cancelled_ms?: number };
  updated_at: string | null;
}

/** A queue's rate limits and where they stand (`GET /ojs/v1/admin/queues/:name/rate-limits`). */
export interface QueueRateLimitsResponse {
  queue: string;
  /** The store's time when it answered (the clock the spacing is measured with). */
  now: string;
  /** The queue-level limit (its configuration's `rate_limit`, and `concurrency`): null fields when unset. */
  queue_limit: { max_per_second: number | null; concurrency: number | null };
  /** The spacing window: the last limited claim, its interval, and the earliest time the next limited claim may happen. */
  window: { last_claim_at: string | null; interval_ms: number | null; next_allowed_at: string | null };
  /** Active jobs of the queue (what the queue-level concurrency counts). */
  active: number;
  /** Concurrency keys of the queue's jobs: jobs in flight and the limit the jobs carry. */
  keys: Array<{ key: string; active: number; concurrency: number | null }>;
}

/** One item of a bulk enqueue (`POST /ojs/v1/jobs/bulk`). */
export type BulkEnqueueItem = { index: number; status: 'created' | 'duplicate'; job: Job } | { index: number; status: 'failed'; error: OjsErrorBody };

export interface BulkEnqueueResponse {
  atomicity: 'atomic' | 'partial';
  total: number;
  succeeded: number;
  failed: number;
  items: BulkEnqueueItem[];
}

/** One job of a bulk cancel, retry or delete (`POST /ojs/v1/jobs/bulk/<action>`). */
export interface BulkJobItem {
  index: number;
  job_id: string;
  status: 'cancelled' | 'retried' | 'deleted' | 'skipped' | 'failed';
  /** Why a job was skipped or failed. */
  reason?: string;
  error?: OjsErrorBody;
}

export interface BulkJobResponse {
  action: 'cancel' | 'retry' | 'delete';
  atomicity: 'partial';
  total_matched: number;
  succeeded: number;
  skipped: number;
  failed: number;
  items: BulkJobItem[];
}

/** Admin bulk action by filter (`POST /ojs/v1/admin/jobs/bulk/<action>`), as the protocol's DLQ bulk retry. */
export interface AdminBulkResponse {
  action: 'cancel' | 'retry' | 'delete';
  matched: number;
  succeeded: number;
  failed: number;
  errors?: Array<{ job_id: string; error: string }>;
}

/** A queue near its bound, reported on an accepted enqueue (and as `X-OJS-Queue-*` headers over HTTP). */
export interface QueuePressure {
  queue: string;
  depth: number;
  bound: number;
  /** depth / bound, 0..1. */
  pressure: number;
}
