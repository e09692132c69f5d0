/** Event routes: polling (`GET /ojs/v1/events`) and the Server-Sent Events stream. */
import type { EventFilter } from '@ojskit/core';
import { ojsJson } from '../http/media.js';
import { requestHeader } from '../http/native.js';
import { EventPollQuery, EventStreamQuery } from '../schemas/inputs.js';
import { EventPollResponseSchema } from '@ojskit/core/schemas';
import { streamEvents } from '../sse/event-stream.js';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Events';

function toFilter(query: { types?: string[]; queues?: string[]; job_types?: string[]; job_id?: string }): EventFilter {
  return {
    ...(query.types ? { types: query.types } : {}),
    ...(query.queues ? { queues: query.queues } : {}),
    ...(query.job_types ? { jobTypes: query.job_types } : {}),
    ...(query.job_id ? { jobId: query.job_id } : {}),
  };
}

export function registerEventRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/events',
      operationId: 'pollEvents',
      summary: 'Poll events',
      description: 'Oldest first, filters AND-ed; pass the returned `cursor` as `after` to continue.',
      tag: TAG,
      query: EventPollQuery,
      responses: { 200: { description: 'Events after `after`.', schema: EventPollResponseSchema } },
    },
    async (c, { query }) =>
      ojsJson(
        c,
        await engine.pollEvents({
          ...toFilter(query),
          ...(query.after ? { after: query.after } : {}),
          ...(query.limit !== undefined ? { limit: query.limit } : {}),
        }),
      ),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/events/stream',
      operationId: 'streamEvents',
      summary: 'Stream events (Server-Sent Events)',
      description:
        'Each message has `event:` = the OJS event type, `id:` = the event id and `data:` = the event as JSON. ' +
        'Keep-alive comments flow while idle. Reconnect with `Last-Event-ID` (or `last_event_id`) to resume from the event log. ' +
        'A client that falls behind by more than the per-client buffer is disconnected and should resume.',
      tag: TAG,
      query: EventStreamQuery,
      responses: { 200: { description: 'Server-Sent Events.', contentType: 'text/event-stream' } },
    },
    (c, { query }) => streamEvents(c, engine, toFilter(query), requestHeader(c, 'last-event-id') ?? query.last_event_id, deps.streams, deps.streamOptions),
  );
}
