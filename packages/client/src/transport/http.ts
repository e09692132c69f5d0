/**
 * The HTTP transport: `OjsApi` spoken over the OJS HTTP binding to any OJS server (the ojskit gateway or
 * another implementation). Error envelopes come back as the same `OjsError` the in-process engine throws,
 * so callers cannot tell the transports apart.
 */
import { OjsError, type EventFilter, type JobHistoryResponse, type ListQuery, type OjsApi, type OjsErrorBody, type OjsEvent } from '@ojskit/core';
import type * as R from '@ojskit/core';
import { readSse } from './sse-reader.js';
import type { AckManyItem, AckManyResponse, BatchAck } from './transport.js';

/** Media type of OJS request bodies. */
const OJS_MEDIA_TYPE = 'application/openjobspec+json';

export interface HttpTransportOptions {
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Delay before an event stream reconnects after it ends or fails (default: the server's `retry:`, else 1 000 ms). */
  reconnectMs?: number;
  /** Longest wait for a new event stream to open before other calls proceed anyway (default 5 000 ms). */
  subscribeReadyTimeoutMs?: number;
}

type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(key, value.join(','));
    } else params.set(key, String(value));
  }
  const text = params.toString();
  return text.length > 0 ? `?${text}` : '';
}

function filterQuery(filter: EventFilter | undefined): Query {
  return { types: filter?.types, queues: filter?.queues, job_types: filter?.jobTypes, job_id: filter?.jobId };
}

const seg = (value: string): string => encodeURIComponent(value);

function isErrorBody(value: unknown): value is { error: OjsErrorBody } {
  const error = (value as { error?: unknown } | null)?.error as Partial<OjsErrorBody> | undefined;
  return typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string';
}

/**
 * `OjsApi` over HTTP. `subscribe` opens the Server-Sent Events stream and resumes it with `Last-Event-ID`
 * after a disconnect; calls made after `subscribe()` are sent once the stream is open, so the listener sees
 * their events, exactly as with the in-process engine.
 * @example
 * const api = http('http://localhost:8080', { apiKey: process.env.OJSKIT_API_KEY });
 * const client = new Client(api);
 */
export class HttpTransport implements OjsApi, BatchAck {
  /** Origin plus any path prefix, without a trailing slash and without `/ojs/v1`. */
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly opening = new Set<Promise<void>>();
  private readonly subscriptions = new Set<() => void>();

  constructor(
    baseUrl: string,
    private readonly options: HttpTransportOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '').replace(/\/ojs\/v1$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = {
      Accept: `${OJS_MEDIA_TYPE}, application/json`,
      'OJS-Version': '1.0',
      ...options.headers,
      ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
    };
  }

  /** One request; resolves with the response and its parsed JSON body, or throws the server's `OjsError`. */
  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    query?: Query,
    acceptStatus: readonly number[] = [],
  ): Promise<{ status: number; body: T }> {
    if (this.opening.size > 0) await Promise.all(this.opening);
    const url = `${this.baseUrl}${path}${queryString(query)}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: body === undefined ? this.headers : { ...this.headers, 'Content-Type': OJS_MEDIA_TYPE },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new OjsError('backend_unavailable', `Cannot reach the OJS server at ${this.baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    let parsed: unknown;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (response.ok || (acceptStatus.includes(response.status) && parsed !== undefined && !isErrorBody(parsed))) {
      if (parsed === undefined && text.length > 0) {
        throw new OjsError('backend_error', `The OJS server sent a non-JSON ${response.status} response to ${method} ${path}.`, { status: 502 });
      }
      return { status: response.status, body: parsed as T };
    }
    if (isErrorBody(parsed)) throw OjsError.fromBody(parsed.error, response.status);
    const code = response.status >= 500 ? 'backend_error' : response.status === 404 ? 'not_found' : 'invalid_request';
    throw new OjsError(code, `${method} ${path} failed with HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}.`, { status: response.status });
  }

  private async send<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
    return (await this.call<T>(method, path, body, query)).body;
  }

  manifest(): Promise<R.Manifest> {
    return this.send('GET', '/ojs/manifest');
  }

  async health(): Promise<R.HealthResponse> {
    // A 503 carrying a health report is an answer (backend unhealthy), as the in-process engine returns it.
    const { body } = await this.call<R.HealthResponse>('GET', '/ojs/v1/health', undefined, undefined, [503]);
    return body;
  }

  async enqueue(request: unknown, options?: { tx?: unknown }): Promise<R.EnqueueResponse> {
    if (options?.tx !== undefined) throw OjsError.unsupported('Transactional enqueue is not available over HTTP.');
    return this.send('POST', '/ojs/v1/jobs', request);
  }

  async enqueueBatch(request: unknown, options?: { tx?: unknown }): Promise<R.BatchEnqueueResponse> {
    if (options?.tx !== undefined) throw OjsError.unsupported('Transactional enqueue is not available over HTTP.');
    return this.send('POST', '/ojs/v1/jobs/batch', request);
  }

  getJob(id: string): Promise<R.JobResponse> {
    return this.send('GET', `/ojs/v1/jobs/${seg(id)}`);
  }

  getJobHistory(id: string): Promise<JobHistoryResponse> {
    return this.send('GET', `/ojs/v1/jobs/${seg(id)}/history`);
  }

  cancelJob(id: string): Promise<R.JobResponse> {
    return this.send('DELETE', `/ojs/v1/jobs/${seg(id)}`);
  }

  activateJob(id: string): Promise<R.JobResponse> {
    return this.send('POST', `/ojs/v1/jobs/${seg(id)}/activate`);
  }

  setProgress(id: string, request: unknown): Promise<R.ProgressResponse> {
    return this.send('PUT', `/ojs/v1/jobs/${seg(id)}/progress`, request);
  }

  getProgress(id: string): Promise<R.ProgressResponse> {
    return this.send('GET', `/ojs/v1/jobs/${seg(id)}/progress`);
  }

  fetch(request: unknown): Promise<R.FetchResponse> {
    return this.send('POST', '/ojs/v1/workers/fetch', request);
  }

  ack(request: unknown): Promise<R.AckResponse> {
    return this.send('POST', '/ojs/v1/workers/ack', request);
  }

  /** Batched ACK (ojskit extension `POST /ojs/v1/workers/ack/batch`). */
  ackMany(request: { acks: AckManyItem[] }): Promise<AckManyResponse> {
    return this.send('POST', '/ojs/v1/workers/ack/batch', request);
  }

  nack(request: unknown): Promise<R.NackResponse> {
    return this.send('POST', '/ojs/v1/workers/nack', request);
  }

  heartbeat(request: unknown): Promise<R.HeartbeatResponse> {
    return this.send('POST', '/ojs/v1/workers/heartbeat', request);
  }

  listQueues(query?: ListQuery): Promise<R.QueueListResponse> {
    return this.send('GET', '/ojs/v1/queues', undefined, { ...query });
  }

  queueStats(name: string): Promise<R.QueueStatsResponse> {
    return this.send('GET', `/ojs/v1/queues/${seg(name)}/stats`);
  }

  pauseQueue(name: string): Promise<R.QueuePauseResponse> {
    return this.send('POST', `/ojs/v1/queues/${seg(name)}/pause`);
  }

  resumeQueue(name: string): Promise<R.QueuePauseResponse> {
    return this.send('POST', `/ojs/v1/queues/${seg(name)}/resume`);
  }

  listDeadLetter(query?: ListQuery & { queue?: string; type?: string }): Promise<R.JobListResponse> {
    return this.send('GET', '/ojs/v1/dead-letter', undefined, { ...query });
  }

  getDeadLetter(id: string): Promise<R.JobResponse> {
    return this.send('GET', `/ojs/v1/dead-letter/${seg(id)}`);
  }

  retryDeadLetter(id: string, request?: unknown): Promise<R.JobResponse> {
    return this.send('POST', `/ojs/v1/dead-letter/${seg(id)}/retry`, request);
  }

  deleteDeadLetter(id: string): Promise<R.DeadLetterDeleteResponse> {
    return this.send('DELETE', `/ojs/v1/dead-letter/${seg(id)}`);
  }

  retryDeadLetterBulk(request: unknown): Promise<R.BulkActionResponse> {
    return this.send('POST', '/ojs/v1/dead-letter/retry', request);
  }

  deadLetterStats(): Promise<R.DeadLetterStatsResponse> {
    return this.send('GET', '/ojs/v1/dead-letter/stats');
  }

  async registerCron(request: unknown): Promise<R.CronRegisterResponse> {
    const { status, body } = await this.call<R.CronResponse>('POST', '/ojs/v1/cron', request);
    // The status carries what the in-process API returns as `created`: 201 new, 200 replaced.
    return { ...body, created: status === 201 };
  }

  listCron(query?: ListQuery & { enabled?: boolean }): Promise<R.CronListResponse> {
    return this.send('GET', '/ojs/v1/cron', undefined, { ...query });
  }

  getCron(name: string): Promise<R.CronResponse> {
    return this.send('GET', `/ojs/v1/cron/${seg(name)}`);
  }

  updateCron(name: string, request: unknown): Promise<R.CronResponse> {
    return this.send('PATCH', `/ojs/v1/cron/${seg(name)}`, request);
  }

  deleteCron(name: string): Promise<R.CronDeleteResponse> {
    return this.send('DELETE', `/ojs/v1/cron/${seg(name)}`);
  }

  createWorkflow(request: unknown): Promise<R.WorkflowResponse> {
    return this.send('POST', '/ojs/v1/workflows', request);
  }

  getWorkflow(id: string): Promise<R.WorkflowResponse> {
    return this.send('GET', `/ojs/v1/workflows/${seg(id)}`);
  }

  cancelWorkflow(id: string): Promise<R.WorkflowResponse> {
    return this.send('DELETE', `/ojs/v1/workflows/${seg(id)}`);
  }

  adminStats(): Promise<R.AdminStatsResponse> {
    return this.send('GET', '/ojs/v1/admin/stats');
  }

  listWorkers(query?: R.AdminPageQuery): Promise<R.AdminWorkerListResponse> {
    return this.send('GET', '/ojs/v1/admin/workers', undefined, { ...query });
  }

  async setWorkerDirective(id: string, directive: 'quiet' | 'terminate'): Promise<R.WorkerDirectiveResponse> {
    // Each directive is its own route: another value would name no route (404) where the engine answers 400.
    if (directive !== 'quiet' && directive !== 'terminate') {
      throw OjsError.invalidRequest(`A worker directive is "quiet" or "terminate", not ${JSON.stringify(directive)}.`, {
        field: 'directive',
        received: directive,
      });
    }
    return this.send('POST', `/ojs/v1/admin/workers/${seg(id)}/${seg(directive)}`);
  }

  listJobs(query?: R.AdminJobQuery): Promise<R.AdminJobListResponse> {
    return this.send('GET', '/ojs/v1/admin/jobs', undefined, { ...query });
  }

  async retryJob(id: string): Promise<R.JobResponse> {
    // The admin route answers the bare envelope (admin-api extension).
    return { job: await this.send<R.Job>('POST', `/ojs/v1/admin/jobs/${seg(id)}/retry`) };
  }

  adminBulk(action: 'cancel' | 'retry' | 'delete', request: unknown): Promise<R.AdminBulkResponse> {
    return this.send('POST', `/ojs/v1/admin/jobs/bulk/${seg(action)}`, request);
  }

  enqueueBulk(request: unknown): Promise<R.BulkEnqueueResponse> {
    return this.send('POST', '/ojs/v1/jobs/bulk', request);
  }

  bulkJobs(action: 'cancel' | 'retry' | 'delete', request: unknown): Promise<R.BulkJobResponse> {
    return this.send('POST', `/ojs/v1/jobs/bulk/${seg(action)}`, request);
  }

  getQueueConfig(name: string): Promise<R.QueueConfigResponse> {
    return this.send('GET', `/ojs/v1/admin/queues/${seg(name)}/config`);
  }

  setQueueConfig(name: string, request: unknown): Promise<R.QueueConfigResponse> {
    return this.send('PUT', `/ojs/v1/admin/queues/${seg(name)}/config`, request);
  }

  getQueueRateLimits(name: string): Promise<R.QueueRateLimitsResponse> {
    return this.send('GET', `/ojs/v1/admin/queues/${seg(name)}/rate-limits`);
  }

  pollEvents(query?: EventFilter & { after?: string; limit?: number }): Promise<R.EventPollResponse> {
    return this.send('GET', '/ojs/v1/events', undefined, { ...filterQuery(query), after: query?.after, limit: query?.limit });
  }

  /**
   * Live events over `GET /ojs/v1/events/stream`. Reconnects after a drop and resumes with `Last-Event-ID`
   * (the server replays what its event log still holds). Returns the unsubscribe function.
   */
  subscribe(filter: EventFilter, listener: (event: OjsEvent) => void): () => void {
    const controller = new AbortController();
    let lastEventId: string | undefined;
    let retryMs = this.options.reconnectMs ?? 1_000;
    let markOpen!: () => void;
    const open = new Promise<void>((resolve) => {
      markOpen = resolve;
    });
    const timer = setTimeout(() => markOpen(), this.options.subscribeReadyTimeoutMs ?? 5_000);
    this.opening.add(open);
    void open.then(() => {
      clearTimeout(timer);
      this.opening.delete(open);
    });

    const url = `${this.baseUrl}/ojs/v1/events/stream${queryString(filterQuery(filter))}`;
    const run = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        try {
          const response = await this.fetchImpl(url, {
            headers: { ...this.headers, Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
            signal: controller.signal,
          });
          if (!response.ok || !response.body) {
            await response.body?.cancel();
            throw new Error(`event stream answered HTTP ${response.status}`);
          }
          await readSse(response.body, {
            onActivity: markOpen,
            onRetry: (ms) => {
              if (this.options.reconnectMs === undefined) retryMs = ms;
            },
            onMessage: (message) => {
              if (message.id !== undefined) lastEventId = message.id;
              // The server's notice that the resume cursor fell out of its window is not an event.
              if (controller.signal.aborted || message.event === 'ojs.cursor_expired') return;
              let event: OjsEvent;
              try {
                event = JSON.parse(message.data) as OjsEvent;
              } catch {
                return;
              }
              listener(event);
            },
          });
        } catch {
          // Dropped, refused or aborted: fall through to the reconnect delay (or exit when unsubscribed).
        }
        markOpen();
        if (controller.signal.aborted) break;
        await new Promise<void>((resolve) => {
          const wait = setTimeout(resolve, retryMs);
          controller.signal.addEventListener(
            'abort',
            () => {
              clearTimeout(wait);
              resolve();
            },
            { once: true },
          );
        });
      }
    };
    void run();
    const unsubscribe = (): void => {
      markOpen();
      controller.abort();
      this.subscriptions.delete(unsubscribe);
    };
    this.subscriptions.add(unsubscribe);
    return unsubscribe;
  }

  /** Ends every event subscription. Requests need no cleanup (the fetch implementation pools connections). */
  async close(): Promise<void> {
    for (const unsubscribe of [...this.subscriptions]) unsubscribe();
  }
}

/**
 * An HTTP transport for `Client` and `Worker`.
 * @example const api = http('http://localhost:8080');
 */
export function http(baseUrl: string, options: HttpTransportOptions = {}): HttpTransport {
  return new HttpTransport(baseUrl, options);
}
