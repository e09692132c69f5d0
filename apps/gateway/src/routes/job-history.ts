/** `GET /ojs/v1/jobs/:id/history`: a job's transitions as its store recorded them (ojskit extension `x-job-history`). */
import { ojsJson } from '../http/media.js';
import { JobIdParams } from '../schemas/inputs.js';
import { JobHistoryResponseSchema } from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

export function registerJobHistoryRoute(deps: RouteDeps): void {
  const { engine } = deps;
  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/jobs/{id}/history',
      operationId: 'getJobHistory',
      summary: "A job's history: every transition, oldest first",
      description:
        'ojskit extension `x-job-history` (spec/history.md). Each line was written in the same atomic step as its transition: ' +
        '`at`, `from` (null at creation), `to`, `trigger`, `attempt`, `worker_id`, `reason` (error type of a failure, source of a cancel). ' +
        'At most 64 lines per job, the oldest dropped first (`dropped` counts them); kept with the job until retention prunes it. ' +
        '`422 unsupported` on a backend that does not record history (the manifest says `capabilities.job_history`).',
      tag: 'Jobs',
      params: JobIdParams,
      responses: { 200: { description: 'The history.', schema: JobHistoryResponseSchema } },
      errors: [404, 422],
    },
    async (c, { params }) => ojsJson(c, await engine.getJobHistory(params.id)),
  );
}
