/**
 * Admin API (admin-api extension): stats, queues and their configuration (backpressure), workers and their
 * directives, job listing, single and bulk job actions, the dead-letter queue, and an optional reset.
 */
import { JOB_STATES, type QueueStatsResponse, type StateCounts } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ojsJson } from '../http/media.js';
import { listQueueNames, type GatewayMetrics } from '../metrics/prometheus.js';
import { BulkActionBody } from '../schemas/bodies.js';
import { AdminDeadLetterQuery, AdminPageQuery, JobIdParams, QueueNameParams } from '../schemas/inputs.js';
import { AdminBulkBody, AdminJobQuery, QueueConfigBody, WorkerIdParams } from '../schemas/admin.js';
import {
  AdminBulkResponseSchema,
  AdminJobListResponseSchema,
  AdminQueueListResponseSchema,
  AdminQueuePauseResponseSchema,
  AdminQueueSchema,
  AdminStatsResponseSchema,
  AdminWorkerListResponseSchema,
  BulkActionResponseSchema,
  DeadLetterStatsResponseSchema,
  JobSchema,
  QueueConfigResponseSchema,
  QueueRateLimitsResponseSchema,
  WorkerDirectiveResponseSchema,
} from '@ojskit/core/schemas';
import { z } from '@hono/zod-openapi';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Admin';
const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;

function page(query: { page?: number; per_page?: number }): { page: number; perPage: number; offset: number } {
  const pageNumber = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page: pageNumber, perPage, offset: (pageNumber - 1) * perPage };
}

function countsOf(stats: QueueStatsResponse): StateCounts {
  return Object.fromEntries(JOB_STATES.map((state) => [state, stats[state]])) as StateCounts;
}

function adminQueue(stats: QueueStatsResponse) {
  return { name: stats.name, state: stats.paused ? 'paused' : 'active', paused: stats.paused, counts: countsOf(stats) };
}

export interface AdminOptions {
  metrics: GatewayMetrics;
  /** When set, `POST /ojs/v1/admin/reset` wipes this driver. */
  resetDriver?: Driver;
}

export function registerAdminRoutes(deps: RouteDeps, options: AdminOptions): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/stats',
      operationId: 'adminStats',
      summary: 'Totals across queues, with worker counts',
      description:
        "`workers` counts live workers; `worker_summary` splits every known worker by reported state and staleness. `throughput` counts this gateway's completions and failures over the last minute.",
      tag: TAG,
      responses: { 200: { description: 'Queue count, worker counts, job counts per state, throughput, uptime.', schema: AdminStatsResponseSchema } },
    },
    async (c) => ojsJson(c, { ...(await engine.adminStats()), throughput: options.metrics.throughput() }),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/queues',
      operationId: 'adminListQueues',
      summary: 'Queues with their counts',
      tag: TAG,
      query: AdminPageQuery,
      responses: { 200: { description: 'A page of queues.', schema: AdminQueueListResponseSchema } },
    },
    async (c, { query }) => {
      const { page: pageNumber, perPage, offset } = page(query);
      const names = await listQueueNames(engine);
      const items = [];
      for (const name of names.slice(offset, offset + perPage)) items.push(adminQueue(await engine.queueStats(name)));
      return ojsJson(c, { items, pagination: { total: names.length, page: pageNumber, per_page: perPage } });
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/queues/{name}',
      operationId: 'adminGetQueue',
      summary: 'One queue with its counts',
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'The queue.', schema: AdminQueueSchema } },
    },
    async (c, { params }) => ojsJson(c, adminQueue(await engine.queueStats(params.name))),
  );

  for (const action of ['pause', 'resume'] as const) {
    defineRoute(
      deps,
      {
        method: 'post',
        path: `/ojs/v1/admin/queues/{name}/${action}`,
        operationId: action === 'pause' ? 'adminPauseQueue' : 'adminResumeQueue',
        summary: action === 'pause' ? 'Pause a queue' : 'Resume a queue',
        tag: TAG,
        params: QueueNameParams,
        responses: { 200: { description: 'The queue.', schema: AdminQueuePauseResponseSchema } },
      },
      async (c, { params }) => {
        const { queue } = action === 'pause' ? await engine.pauseQueue(params.name) : await engine.resumeQueue(params.name);
        return ojsJson(c, {
          name: queue.name,
          paused: queue.paused,
          ...(queue.paused_at ? { paused_at: queue.paused_at } : {}),
          ...(queue.resumed_at ? { resumed_at: queue.resumed_at } : {}),
        });
      },
    );
  }

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/queues/{name}/config',
      operationId: 'adminGetQueueConfig',
      summary: "A queue's configuration (backpressure bound, concurrency, retention)",
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'The configuration; defaults for a queue never configured.', schema: QueueConfigResponseSchema } },
    },
    async (c, { params }) => ojsJson(c, await engine.getQueueConfig(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'put',
      path: '/ojs/v1/admin/queues/{name}/config',
      operationId: 'adminSetQueueConfig',
      summary: "Replace a queue's configuration",
      description:
        'Body `{"backpressure":{"max_depth":n,"warning_threshold":0.8,"retry_after_seconds":1}}` (or a flat `max_depth`), `concurrency`, `rate_limit` ' +
        '(`{"max_per_second":n,"concurrency":k}`, enforced by every claim from the queue), `retention`. ' +
        'Over `max_depth` waiting jobs, enqueues answer `429 QUEUE_FULL`. Only the `reject` strategy exists (`422 unsupported` otherwise).',
      tag: TAG,
      params: QueueNameParams,
      body: { schema: QueueConfigBody, required: true },
      responses: { 200: { description: 'The stored configuration.', schema: QueueConfigResponseSchema } },
      errors: [422],
    },
    async (c, { params, body }) => ojsJson(c, await engine.setQueueConfig(params.name, body)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/queues/{name}/rate-limits',
      operationId: 'adminGetQueueRateLimits',
      summary: "Where a queue's rate limits stand: the spacing window and the jobs in flight per concurrency key",
      description: 'ojskit extension (spec/rate-limits.md). `422 unsupported` on a backend whose manifest says `rate_limiting: false`.',
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'The queue-level limit, the window and the in-flight counts.', schema: QueueRateLimitsResponseSchema } },
      errors: [422],
    },
    async (c, { params }) => ojsJson(c, await engine.getQueueRateLimits(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/workers',
      operationId: 'adminListWorkers',
      summary: 'Workers: state, directive, active jobs, last heartbeat, staleness',
      description: "Most recent heartbeat first. A worker is `stale` once silent longer than the engine's worker-death time (default 30 s).",
      tag: TAG,
      query: AdminPageQuery,
      responses: { 200: { description: 'A page of workers and a summary of all.', schema: AdminWorkerListResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await engine.listWorkers(query)),
  );

  for (const directive of ['quiet', 'terminate'] as const) {
    defineRoute(
      deps,
      {
        method: 'post',
        path: `/ojs/v1/admin/workers/{id}/${directive}`,
        operationId: directive === 'quiet' ? 'adminQuietWorker' : 'adminTerminateWorker',
        summary: directive === 'quiet' ? 'Quiet a worker: it stops fetching' : 'Terminate a worker: it finishes its jobs and exits',
        description:
          "Delivered as the `state`/`directive` of the worker's next heartbeat response; sticky for that worker id. A worker not seen yet gets it on its first heartbeat.",
        tag: TAG,
        params: WorkerIdParams,
        responses: { 200: { description: 'The directive now stored.', schema: WorkerDirectiveResponseSchema } },
      },
      async (c, { params }) => ojsJson(c, await engine.setWorkerDirective(params.id, directive)),
    );
  }

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/jobs',
      operationId: 'adminListJobs',
      summary: 'Jobs filtered by queue, state, type and creation time, paged',
      tag: TAG,
      query: AdminJobQuery,
      responses: { 200: { description: 'A page of jobs, newest first.', schema: AdminJobListResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await engine.listJobs(query)),
  );

  // Before `/admin/jobs/{id}/…`: `bulk` is a literal segment, not a job id.
  for (const action of ['retry', 'cancel', 'delete'] as const) {
    defineRoute(
      deps,
      {
        method: 'post',
        path: `/ojs/v1/admin/jobs/bulk/${action}`,
        operationId: `adminBulk${action.charAt(0).toUpperCase()}${action.slice(1)}`,
        summary: `Bulk ${action} of the jobs a filter matches (requires \`confirm: true\`)`,
        description:
          'Filter `{queue?, state? (one or a list), type?, since?, until?}`; each action has a default state set (see `POST /ojs/v1/jobs/bulk/' +
          action +
          '`).',
        tag: TAG,
        body: { schema: AdminBulkBody, required: true },
        responses: { 200: { description: 'Counts, and the jobs that failed.', schema: AdminBulkResponseSchema } },
      },
      async (c, { body }) => ojsJson(c, await engine.adminBulk(action, body)),
    );
  }

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/admin/jobs/{id}/retry',
      operationId: 'adminRetryJob',
      summary: 'Retry a job (bare envelope)',
      description: 'Revives a `discarded` job (attempts reset, as lifecycle #19) or runs a `retryable` one now; other states answer `409`.',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job, now `available`, without the `job` wrapper.', schema: JobSchema } },
      errors: [404, 409],
    },
    async (c, { params }) => ojsJson(c, (await engine.retryJob(params.id)).job),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/jobs/{id}',
      operationId: 'adminGetJob',
      summary: 'A job (bare envelope)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job, without the `job` wrapper.', schema: JobSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, (await engine.getJob(params.id)).job),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/admin/jobs/{id}/cancel',
      operationId: 'adminCancelJob',
      summary: 'Cancel a job (bare envelope)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The cancelled job, without the `job` wrapper.', schema: JobSchema } },
      errors: [404, 409],
    },
    async (c, { params }) => ojsJson(c, (await engine.cancelJob(params.id)).job),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/dead-letter',
      operationId: 'adminListDeadLetter',
      summary: 'Dead-lettered jobs, paged',
      tag: TAG,
      query: AdminDeadLetterQuery,
      responses: { 200: { description: 'A page of jobs.', schema: AdminJobListResponseSchema } },
    },
    async (c, { query }) => {
      const { page: pageNumber, perPage, offset } = page(query);
      const list = await engine.listDeadLetter({
        limit: perPage,
        offset,
        ...(query.queue ? { queue: query.queue } : {}),
        ...(query.type ? { type: query.type } : {}),
      });
      return ojsJson(c, { items: list.jobs, pagination: { total: list.pagination.total, page: pageNumber, per_page: perPage } });
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/dead-letter/stats',
      operationId: 'adminDeadLetterStats',
      summary: 'Dead-letter statistics',
      tag: TAG,
      responses: { 200: { description: 'Totals.', schema: DeadLetterStatsResponseSchema } },
    },
    async (c) => ojsJson(c, await engine.deadLetterStats()),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/admin/dead-letter/retry',
      operationId: 'adminRetryDeadLetterBulk',
      summary: 'Retry dead-lettered jobs matching a filter (requires `confirm: true`)',
      tag: TAG,
      body: { schema: BulkActionBody, required: true },
      responses: { 200: { description: 'Counts.', schema: BulkActionResponseSchema } },
    },
    async (c, { body }) => ojsJson(c, await engine.retryDeadLetterBulk(body)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/admin/dead-letter/{id}/retry',
      operationId: 'adminRetryDeadLetter',
      summary: 'Retry a dead-lettered job (bare envelope)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job, without the `job` wrapper.', schema: JobSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, (await engine.retryDeadLetter(params.id)).job),
  );

  defineRoute(
    deps,
    {
      method: 'delete',
      path: '/ojs/v1/admin/dead-letter/{id}',
      operationId: 'adminDeleteDeadLetter',
      summary: 'Delete a dead-lettered job',
      tag: TAG,
      params: JobIdParams,
      responses: { 204: { description: 'Deleted.' } },
      errors: [404],
    },
    async (c, { params }) => {
      await engine.deleteDeadLetter(params.id);
      return c.body(null, 204);
    },
  );

  const resetDriver = options.resetDriver;
  if (resetDriver) {
    defineRoute(
      deps,
      {
        method: 'post',
        path: '/ojs/v1/admin/reset',
        operationId: 'adminReset',
        summary: 'Wipe all state (enabled by configuration only)',
        tag: TAG,
        responses: { 200: { description: 'Everything was deleted.', schema: z.object({ reset: z.literal(true) }) } },
      },
      async (c) => {
        await resetDriver.reset();
        return ojsJson(c, { reset: true });
      },
    );
  }
}
