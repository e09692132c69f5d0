/**
 * Admin API (admin-api extension), for the operations `OjsApi` offers. Routes needing operations it lacks
 * (job listing, bulk job actions, worker listing and directives, queue config, retry of a discarded job
 * outside the DLQ) are not registered, so they answer `404 not_found` like any unknown route.
 */
import { JOB_STATES, type QueueStatsResponse, type StateCounts } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ojsJson } from '../http/media.js';
import { listQueueNames, type GatewayMetrics } from '../metrics/prometheus.js';
import { BulkActionBody } from '../schemas/bodies.js';
import { AdminDeadLetterQuery, AdminPageQuery, JobIdParams, QueueNameParams } from '../schemas/inputs.js';
import {
  AdminJobListResponse,
  AdminQueue,
  AdminQueueListResponse,
  AdminQueuePauseResponse,
  AdminStatsResponse,
  BulkActionResponse,
  DeadLetterStatsResponse,
  Job,
} from '../schemas/responses.js';
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
      summary: 'Totals across queues',
      description: '`throughput` counts this gateway\'s completions and failures over the last minute.',
      tag: TAG,
      responses: { 200: { description: 'Queue count, job counts per state, throughput, uptime.', schema: AdminStatsResponse } },
    },
    async (c) => {
      const names = await listQueueNames(engine);
      const jobs = Object.fromEntries(JOB_STATES.map((state) => [state, 0])) as StateCounts;
      for (const name of names) {
        const stats = await engine.queueStats(name);
        for (const state of JOB_STATES) jobs[state] += stats[state];
      }
      const health = await engine.health();
      return ojsJson(c, { queues: names.length, jobs, throughput: options.metrics.throughput(), uptime_seconds: health.uptime_seconds });
    },
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
      responses: { 200: { description: 'A page of queues.', schema: AdminQueueListResponse } },
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
      responses: { 200: { description: 'The queue.', schema: AdminQueue } },
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
        responses: { 200: { description: 'The queue.', schema: AdminQueuePauseResponse } },
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
      path: '/ojs/v1/admin/jobs/{id}',
      operationId: 'adminGetJob',
      summary: 'A job (bare envelope)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job, without the `job` wrapper.', schema: Job } },
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
      responses: { 200: { description: 'The cancelled job, without the `job` wrapper.', schema: Job } },
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
      responses: { 200: { description: 'A page of jobs.', schema: AdminJobListResponse } },
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
      responses: { 200: { description: 'Totals.', schema: DeadLetterStatsResponse } },
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
      responses: { 200: { description: 'Counts.', schema: BulkActionResponse } },
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
      responses: { 200: { description: 'The job, without the `job` wrapper.', schema: Job } },
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
