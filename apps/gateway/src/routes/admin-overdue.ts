/** `GET /ojs/v1/admin/overdue`: the stuck jobs behind the `ojs_jobs_overdue` gauge, by id (ojskit extension). */
import { ojsJson } from '../http/media.js';
import { AdminOverdueQuery } from '../schemas/inputs.js';
import { OverdueJobsResponseSchema } from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

/** Registers the route when the engine can list stuck jobs. */
export function registerOverdueRoute(deps: RouteDeps): void {
  const { engine } = deps;
  const listOverdue = engine.listOverdue?.bind(engine);
  if (!listOverdue) return;
  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/admin/overdue',
      operationId: 'adminListOverdue',
      summary: 'Stuck jobs: active past a deadline, or held by a silent worker',
      description:
        'Active jobs past their visibility deadline or execution timeout, then jobs held by a worker silent for longer than the worker death time; oldest deadline first. ' +
        'The rescuer moves them on its next pass: a job that stays listed means no gateway runs the rescuer, or it is not keeping up.',
      tag: 'Admin',
      query: AdminOverdueQuery,
      responses: { 200: { description: 'The stuck jobs; `truncated` when more than `limit` are.', schema: OverdueJobsResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await listOverdue(query.limit !== undefined ? { limit: query.limit } : {})),
  );
}
