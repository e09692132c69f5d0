/**
 * The engine: the OJS protocol's behaviour, written once for every backend. It validates requests, decides
 * every transition from core's table and policies, runs the driver's atomic primitives, emits one event per
 * transition and runs the background services.
 */
import type { ListQuery, OjsApi } from '../api/ojs-api.js';
import type { AdminJobQuery, AdminPageQuery } from '../api/admin-api.js';
import type * as A from '../api/admin-responses.js';
import type * as R from '../api/responses.js';
import { systemClock, type Clock } from '../clock.js';
import type { Driver } from '../driver/driver.js';
import { OjsError } from '../errors/ojs-error.js';
import type { OjsEvent } from '../events/event.js';
import type { EventFilter } from '../events/filter.js';
import type { JobHistoryResponse } from '../history/job-history.js';
import { EventHub } from '../events/hub.js';
import { WorkSignal } from './work-signal.js';
import { QueueConfigCache } from './queue-configs.js';
import { WorkerDirectives } from './worker-directives.js';
import { newId } from '../formats/ids.js';
import { DEFAULT_EXECUTION_TIMEOUT_MS, DEFAULT_VISIBILITY_TIMEOUT_MS } from '../schemas/patterns.js';
import { cronFirer } from './services/cron-firer.js';
import { expirer } from './services/expirer.js';
import { promoter } from './services/promoter.js';
import { pruner } from './services/pruner.js';
import { rescuer } from './services/rescuer.js';
import { ServiceRunner } from './services/runner.js';
import type { EngineContext, EngineSettings } from './context.js';
import { DEFAULT_RETENTION, DEFAULT_SERVICE_INTERVALS, type EngineOptions } from './options.js';
import * as admin from './ops/admin.js';
import * as bulk from './ops/bulk.js';
import * as cron from './ops/cron.js';
import * as deadLetter from './ops/dead-letter.js';
import * as enqueueOps from './ops/enqueue.js';
import * as jobs from './ops/jobs.js';
import * as history from './ops/history.js';
import * as overdue from './ops/overdue.js';
import * as queues from './ops/queues.js';
import * as rateLimits from './ops/rate-limits.js';
import * as system from './ops/system.js';
import * as worker from './ops/worker.js';
import * as workflows from './ops/workflows.js';

const DEFAULT_EVENT_POLL_LIMIT = 100;
const MAX_EVENT_POLL_LIMIT = 1_000;

/**
 * Runs the OJS protocol over any `Driver`.
 * @example
 * const engine = new Engine({ driver: new MemoryDriver() });
 * await engine.enqueue({ type: 'email.send', args: ['ada@example.com'] });
 * const { jobs } = await engine.fetch({ queues: ['default'], worker_id: 'w1' });
 * await engine.ack({ job_id: jobs[0].id, result: { sent: true } });
 */
export class Engine implements OjsApi {
  readonly driver: Driver;
  readonly clock: Clock;
  private readonly ctx: EngineContext;
  private readonly runner: ServiceRunner;
  private readonly onError: (err: unknown, where: string) => void;

  constructor(options: EngineOptions & { onError?: (err: unknown, where: string) => void }) {
    this.driver = options.driver;
    this.clock = options.clock ?? systemClock;
    // An unreachable store is an operating condition: its message, without a stack.
    this.onError =
      options.onError ??
      ((err, where) => console.error(`[ojskit] ${where}:`, err instanceof OjsError && err.code === 'backend_unavailable' ? err.message : err));
    const settings: EngineSettings = {
      visibilityTimeoutMs: options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS,
      executionTimeoutMs: options.executionTimeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS,
      workerDeathMs: options.workerDeathMs ?? 30_000,
      maxFetchCount: options.maxFetchCount ?? 1_000,
      maxBatchSize: options.maxBatchSize ?? 10_000,
      services: { ...DEFAULT_SERVICE_INTERVALS, ...options.services },
      retention: { ...DEFAULT_RETENTION, ...options.retention },
      instanceId: options.instanceId ?? `engine-${newId()}`,
      implementation: options.implementation ?? { name: 'ojskit', version: '0.1.0' },
    };
    const hub = new EventHub(
      options.eventBufferSize ?? 10_000,
      options.driver.events,
      (err) => this.onError(err, 'event listener'),
      options.eventOrderWindowMs,
    );
    this.ctx = {
      driver: options.driver,
      clock: this.clock,
      random: options.random ?? Math.random,
      settings,
      hub,
      work: new WorkSignal(),
      queueConfigs: new QueueConfigCache(options.driver, this.clock),
      workerDirectives: new WorkerDirectives(),
      startedAt: Date.now(),
      onTerminal: (job) => workflows.onMemberTerminal(this.ctx, job),
    };
    // Read the queue configurations now, so the first enqueue need not wait for them.
    void Promise.resolve(this.ctx.queueConfigs.current()).catch((err: unknown) => this.onError(err, 'queue configurations'));
    this.runner = new ServiceRunner(this.ctx, [promoter, rescuer, expirer, cronFirer, pruner], (name, err) => this.onError(err, `service ${name}`));
  }

  /** Starts the background services (promote, rescue, expire, cron, prune) on timers, under leases. */
  start(): this {
    this.runner.start();
    return this;
  }

  /** Stops the background services and waits for passes in flight. */
  async stop(): Promise<void> {
    await this.runner.stop();
  }

  /** Stops everything and closes the driver. */
  async close(): Promise<void> {
    await this.stop();
    this.ctx.hub.close();
    await this.driver.close();
  }

  /** One pass of every background service, ignoring timers and leases: for tests driven by a `ManualClock`. */
  async runMaintenance(): Promise<void> {
    await this.runner.runOnce();
  }

  manifest = async (): Promise<R.Manifest> => system.manifest(this.ctx);
  health = (): Promise<R.HealthResponse> => system.health(this.ctx);

  enqueue = (request: unknown, options?: { tx?: unknown }): Promise<R.EnqueueResponse> => enqueueOps.enqueue(this.ctx, request, options?.tx);
  enqueueBatch = (request: unknown, options?: { tx?: unknown }): Promise<R.BatchEnqueueResponse> => enqueueOps.enqueueBatch(this.ctx, request, options?.tx);
  getJob = (id: string): Promise<R.JobResponse> => jobs.getJob(this.ctx, id);
  getJobHistory = (id: string): Promise<JobHistoryResponse> => history.getJobHistory(this.ctx, id);
  cancelJob = (id: string): Promise<R.JobResponse> => jobs.cancelJob(this.ctx, id);
  activateJob = (id: string): Promise<R.JobResponse> => jobs.activateJob(this.ctx, id);
  setProgress = (id: string, request: unknown): Promise<R.ProgressResponse> => jobs.setProgress(this.ctx, id, request);
  getProgress = (id: string): Promise<R.ProgressResponse> => jobs.getProgress(this.ctx, id);

  fetch = (request: unknown, options?: { signal?: AbortSignal }): Promise<R.FetchResponse> => worker.fetchJobs(this.ctx, request, options?.signal);
  ack = (request: unknown): Promise<R.AckResponse> => worker.ack(this.ctx, request);
  /** Batched ACKs (ojskit extension `x-ack-batch`): `{ acks: [{ job_id, result?, worker_id? }] }`. */
  ackMany = (request: unknown): Promise<R.AckManyResponse> => worker.ackMany(this.ctx, request);
  nack = (request: unknown): Promise<R.NackResponse> => worker.nack(this.ctx, request);
  heartbeat = (request: unknown): Promise<R.HeartbeatResponse> => worker.heartbeat(this.ctx, request);

  listQueues = (query?: ListQuery): Promise<R.QueueListResponse> => queues.listQueues(this.ctx, query);
  queueStats = (name: string): Promise<R.QueueStatsResponse> => queues.queueStats(this.ctx, name);
  pauseQueue = (name: string): Promise<R.QueuePauseResponse> => queues.pauseQueue(this.ctx, name);
  resumeQueue = (name: string): Promise<R.QueuePauseResponse> => queues.resumeQueue(this.ctx, name);

  listDeadLetter = (query?: ListQuery & { queue?: string; type?: string }): Promise<R.JobListResponse> => deadLetter.listDeadLetter(this.ctx, query);
  getDeadLetter = (id: string): Promise<R.JobResponse> => deadLetter.getDeadLetter(this.ctx, id);
  retryDeadLetter = (id: string, request?: unknown): Promise<R.JobResponse> => deadLetter.retryDeadLetter(this.ctx, id, request);
  deleteDeadLetter = (id: string): Promise<R.DeadLetterDeleteResponse> => deadLetter.deleteDeadLetter(this.ctx, id);
  retryDeadLetterBulk = (request: unknown): Promise<R.BulkActionResponse> => deadLetter.retryDeadLetterBulk(this.ctx, request);
  deadLetterStats = (): Promise<R.DeadLetterStatsResponse> => deadLetter.deadLetterStats(this.ctx);

  registerCron = (request: unknown): Promise<R.CronRegisterResponse> => cron.registerCron(this.ctx, request);
  listCron = (query?: ListQuery & { enabled?: boolean }): Promise<R.CronListResponse> => cron.listCron(this.ctx, query);
  getCron = (name: string): Promise<R.CronResponse> => cron.getCron(this.ctx, name);
  updateCron = (name: string, request: unknown): Promise<R.CronResponse> => cron.updateCron(this.ctx, name, request);
  deleteCron = (name: string): Promise<R.CronDeleteResponse> => cron.deleteCron(this.ctx, name);

  createWorkflow = (request: unknown): Promise<R.WorkflowResponse> => workflows.createWorkflow(this.ctx, request);
  getWorkflow = (id: string): Promise<R.WorkflowResponse> => workflows.getWorkflow(this.ctx, id);
  cancelWorkflow = (id: string): Promise<R.WorkflowResponse> => workflows.cancelWorkflow(this.ctx, id);

  adminStats = (): Promise<A.AdminStatsResponse> => admin.adminStats(this.ctx);
  listWorkers = (query?: AdminPageQuery): Promise<A.AdminWorkerListResponse> => admin.listWorkers(this.ctx, query);
  setWorkerDirective = (id: string, directive: 'quiet' | 'terminate'): Promise<A.WorkerDirectiveResponse> => admin.setWorkerDirective(this.ctx, id, directive);
  listJobs = (query?: AdminJobQuery): Promise<A.AdminJobListResponse> => admin.listJobs(this.ctx, query);
  retryJob = (id: string): Promise<R.JobResponse> => admin.retryJob(this.ctx, id);
  adminBulk = (action: bulk.BulkAction, request: unknown): Promise<A.AdminBulkResponse> => bulk.adminBulk(this.ctx, action, request);
  enqueueBulk = (request: unknown): Promise<A.BulkEnqueueResponse> => bulk.enqueueBulk(this.ctx, request);
  bulkJobs = (action: bulk.BulkAction, request: unknown): Promise<A.BulkJobResponse> => bulk.bulkJobs(this.ctx, action, request);
  getQueueConfig = (name: string): Promise<A.QueueConfigResponse> => admin.getQueueConfig(this.ctx, name);
  setQueueConfig = (name: string, request: unknown): Promise<A.QueueConfigResponse> => admin.setQueueConfig(this.ctx, name, request);
  getQueueRateLimits = (name: string): Promise<A.QueueRateLimitsResponse> => rateLimits.getQueueRateLimits(this.ctx, name);

  pollEvents = async (query?: EventFilter & { after?: string; limit?: number }): Promise<R.EventPollResponse> => {
    const limit = query?.limit ?? DEFAULT_EVENT_POLL_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) throw OjsError.invalidRequest('limit must be a positive integer.', { field: 'limit', received: limit });
    const capped = Math.min(limit, MAX_EVENT_POLL_LIMIT);
    const { events, hasMore, cursorLost } = this.ctx.hub.poll({ ...query, limit: capped });
    // Not in this process's window: the store's may still hold it (another gateway's event, or one from before
    // this process started). Only a cursor neither holds is expired.
    if (cursorLost && query?.after) {
      // A store that cannot be read now (down) leaves the answer to the window: expired, which is true here.
      const stored = await this.ctx.hub.replay({ ...query, after: query.after, limit: capped }).catch((error: unknown) => {
        this.onError(error, 'event replay');
        return undefined;
      });
      if (stored !== undefined) return { events: stored.events, cursor: stored.cursor, has_more: stored.hasMore };
    }
    const response: R.EventPollResponse = { events, cursor: events.at(-1)?.id ?? query?.after ?? null, has_more: hasMore };
    if (cursorLost) response.cursor_expired = true;
    return response;
  };

  /** Stuck jobs: active past a deadline, or held by a silent worker (ojskit extension, admin API). */
  listOverdue = (query?: { limit?: number }): Promise<overdue.OverdueJobsResponse> => overdue.listOverdue(this.ctx, query);

  subscribe = (filter: EventFilter, listener: (event: OjsEvent) => void): (() => void) => this.ctx.hub.subscribe(filter, listener);
}
