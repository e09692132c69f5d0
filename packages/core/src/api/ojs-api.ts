/**
 * `OjsApi`: the OJS operations with their wire-shaped inputs and outputs. The in-process `Engine` implements
 * it; so does the HTTP transport in `@ojskit/client`. The contract suite tests this interface, so every
 * backend and the HTTP gateway are held to the same behaviour. Errors are thrown as `OjsError`.
 * Inputs are `unknown` on purpose: implementations validate them (in-process callers get the same errors
 * an HTTP client would).
 */
import type { Job } from '../schemas/job.js';
import type { OjsEvent } from '../events/event.js';
import type { EventFilter } from '../events/filter.js';
import type * as R from './responses.js';

export interface ListQuery {
  limit?: number;
  offset?: number;
  cursor?: string;
}

export interface OjsApi {
  manifest(): Promise<R.Manifest>;
  health(): Promise<R.HealthResponse>;

  /** PUSH. `options.tx` joins a caller's transaction where the backend supports it. */
  enqueue(request: unknown, options?: { tx?: unknown }): Promise<R.EnqueueResponse>;
  /** PUSH batch, all-or-nothing. Body `{"jobs":[…]}`. */
  enqueueBatch(request: unknown, options?: { tx?: unknown }): Promise<R.BatchEnqueueResponse>;
  getJob(id: string): Promise<R.JobResponse>;
  /** CANCEL; the job carries `previous_state`. */
  cancelJob(id: string): Promise<R.JobResponse>;
  /** ACTIVATE a `pending` job. */
  activateJob(id: string): Promise<R.JobResponse>;
  setProgress(id: string, request: unknown): Promise<R.ProgressResponse>;
  getProgress(id: string): Promise<R.ProgressResponse>;

  /**
   * FETCH. Body `{queues, count?, worker_id?, visibility_timeout_ms?, wait_ms?}`. An aborted `options.signal`
   * ends a long-poll wait early: the fetch then answers with no jobs and claims nothing (a claim already under
   * way completes and returns its jobs). A transport may ignore the signal and hold the wait to its end.
   */
  fetch(request: unknown, options?: { signal?: AbortSignal }): Promise<R.FetchResponse>;
  ack(request: unknown): Promise<R.AckResponse>;
  nack(request: unknown): Promise<R.NackResponse>;
  heartbeat(request: unknown): Promise<R.HeartbeatResponse>;

  listQueues(query?: ListQuery): Promise<R.QueueListResponse>;
  queueStats(name: string): Promise<R.QueueStatsResponse>;
  pauseQueue(name: string): Promise<R.QueuePauseResponse>;
  resumeQueue(name: string): Promise<R.QueuePauseResponse>;

  listDeadLetter(query?: ListQuery & { queue?: string; type?: string }): Promise<R.JobListResponse>;
  getDeadLetter(id: string): Promise<R.JobResponse>;
  retryDeadLetter(id: string, request?: unknown): Promise<R.JobResponse>;
  deleteDeadLetter(id: string): Promise<R.DeadLetterDeleteResponse>;
  /** Bulk retry: `{"filter":{queue?,type?,since?,error_type?},"confirm":true}`. */
  retryDeadLetterBulk(request: unknown): Promise<R.BulkActionResponse>;
  deadLetterStats(): Promise<R.DeadLetterStatsResponse>;

  registerCron(request: unknown): Promise<R.CronRegisterResponse>;
  listCron(query?: ListQuery & { enabled?: boolean }): Promise<R.CronListResponse>;
  getCron(name: string): Promise<R.CronResponse>;
  /** `{"enabled":bool}` */
  updateCron(name: string, request: unknown): Promise<R.CronResponse>;
  deleteCron(name: string): Promise<R.CronDeleteResponse>;

  createWorkflow(request: unknown): Promise<R.WorkflowResponse>;
  getWorkflow(id: string): Promise<R.WorkflowResponse>;
  cancelWorkflow(id: string): Promise<R.WorkflowResponse>;

  /** Events after `after` (an event id), oldest first. */
  pollEvents(query?: EventFilter & { after?: string; limit?: number }): Promise<R.EventPollResponse>;
  /** Live events matching the filter; returns an unsubscribe function. */
  subscribe(filter: EventFilter, listener: (event: OjsEvent) => void): () => void;
}

/** Convenience re-export of the job type for API consumers. */
export type { Job };
