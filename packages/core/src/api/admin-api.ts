/**
 * The admin, bulk and backpressure operations of `OjsApi` (admin-api, bulk-operations and backpressure
 * extensions). Inputs are `unknown` wire bodies or queries, validated by the implementation like every other
 * operation; errors are thrown as `OjsError`.
 */
import type * as A from './admin-responses.js';
import type { JobResponse } from './responses.js';

/** Query of `listWorkers` and other admin lists. */
export interface AdminPageQuery {
  page?: number;
  per_page?: number;
}

/** Query of `listJobs`: filters AND-ed, newest first. `since`/`until` bound `created_at` (RFC 3339). */
export interface AdminJobQuery extends AdminPageQuery {
  queue?: string;
  state?: string;
  type?: string;
  since?: string;
  until?: string;
}

export interface OjsAdminApi {
  /** Totals across queues, with worker counts. */
  adminStats(): Promise<A.AdminStatsResponse>;
  /** Workers by last heartbeat, with their directive and whether they went stale. */
  listWorkers(query?: AdminPageQuery): Promise<A.AdminWorkerListResponse>;
  /** Sets a sticky operator directive, delivered on the worker's next heartbeat. */
  setWorkerDirective(id: string, directive: 'quiet' | 'terminate'): Promise<A.WorkerDirectiveResponse>;
  /** Jobs of every state, filtered and paged (admin pagination). */
  listJobs(query?: AdminJobQuery): Promise<A.AdminJobListResponse>;
  /** Revives a `discarded` job (in the DLQ or not) or runs a `retryable` one now; other states → `409`. */
  retryJob(id: string): Promise<JobResponse>;
  /** Admin bulk action by filter; body `{"filter":{queue?,state?,type?,since?,until?},"confirm":true}`. */
  adminBulk(action: 'cancel' | 'retry' | 'delete', request: unknown): Promise<A.AdminBulkResponse>;
  /** Bulk enqueue: `{"jobs":[…],"atomicity":"partial"|"atomic"}` with per-item results. */
  enqueueBulk(request: unknown): Promise<A.BulkEnqueueResponse>;
  /** Bulk cancel, retry or delete by `job_ids` or `filter`, with per-item results. */
  bulkJobs(action: 'cancel' | 'retry' | 'delete', request: unknown): Promise<A.BulkJobResponse>;
  getQueueConfig(name: string): Promise<A.QueueConfigResponse>;
  /** Replaces the queue's configuration: `{"backpressure":{max_depth,…}|max_depth, concurrency?, retention?}`. */
  setQueueConfig(name: string, request: unknown): Promise<A.QueueConfigResponse>;
  /** The queue's rate limits: the spacing window (next allowed claim) and the jobs in flight per concurrency key. */
  getQueueRateLimits(name: string): Promise<A.QueueRateLimitsResponse>;
}
