/** Queue routes: list, stats, pause, resume, and the per-queue event stream. */
import { ojsJson } from '../http/media.js';
import { requestHeader } from '../http/native.js';
import { EventStreamQuery, ListQuery, QueueNameParams } from '../schemas/inputs.js';
import { QueueListResponseSchema, QueuePauseResponseSchema, QueueStatsResponseSchema } from '@ojskit/core/schemas';
import { streamEvents } from '../sse/event-stream.js';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Queues';

export function registerQueueRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/queues',
      operationId: 'listQueues',
      summary: 'List queues',
      tag: TAG,
      query: ListQuery,
      responses: { 200: { description: 'Every queue ever enqueued to or paused.', schema: QueueListResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await engine.listQueues(query)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/queues/{name}/stats',
      operationId: 'queueStats',
      summary: 'Queue statistics',
      description: 'Unknown but valid names report zero counts.',
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'Counts per state (in `queue`, `stats` and at the top level).', schema: QueueStatsResponseSchema } },
    },
    async (c, { params }) => ojsJson(c, await engine.queueStats(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/queues/{name}/pause',
      operationId: 'pauseQueue',
      summary: 'Pause a queue (FETCH skips it; enqueue still accepted)',
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'The paused queue.', schema: QueuePauseResponseSchema } },
    },
    async (c, { params }) => ojsJson(c, await engine.pauseQueue(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/queues/{name}/resume',
      operationId: 'resumeQueue',
      summary: 'Resume a queue',
      tag: TAG,
      params: QueueNameParams,
      responses: { 200: { description: 'The resumed queue.', schema: QueuePauseResponseSchema } },
    },
    async (c, { params }) => ojsJson(c, await engine.resumeQueue(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/queues/{name}/events',
      operationId: 'streamQueueEvents',
      summary: 'Stream the events of one queue (SSE, realtime extension)',
      tag: TAG,
      params: QueueNameParams,
      query: EventStreamQuery.pick({ types: true, job_types: true, last_event_id: true }),
      responses: { 200: { description: 'Server-Sent Events.', contentType: 'text/event-stream' } },
    },
    (c, { params, query }) =>
      streamEvents(
        c,
        engine,
        { queues: [params.name], ...(query.types ? { types: query.types } : {}), ...(query.job_types ? { jobTypes: query.job_types } : {}) },
        requestHeader(c, 'last-event-id') ?? query.last_event_id,
        deps.streams,
        deps.streamOptions,
      ),
  );
}
