/** Dead-letter routes (level 1 + dead-letter extension). Literal paths are registered before `/{id}`. */
import { ojsJson } from '../http/media.js';
import { BulkActionBody, DeadLetterRetryBody } from '../schemas/bodies.js';
import { DeadLetterListQuery, JobIdParams } from '../schemas/inputs.js';
import {
  BulkActionResponseSchema,
  DeadLetterDeleteResponseSchema,
  DeadLetterStatsResponseSchema,
  JobListResponseSchema,
  JobResponseSchema,
} from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Dead letter';

export function registerDeadLetterRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/dead-letter',
      operationId: 'listDeadLetter',
      summary: 'List dead-lettered jobs',
      tag: TAG,
      query: DeadLetterListQuery,
      responses: { 200: { description: 'Full envelopes, including their errors.', schema: JobListResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await engine.listDeadLetter(query)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/dead-letter/stats',
      operationId: 'deadLetterStats',
      summary: 'Dead-letter statistics',
      tag: TAG,
      responses: { 200: { description: 'Totals by queue and error type.', schema: DeadLetterStatsResponseSchema } },
    },
    async (c) => ojsJson(c, await engine.deadLetterStats()),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/dead-letter/retry',
      operationId: 'retryDeadLetterBulk',
      summary: 'Retry dead-lettered jobs matching a filter',
      description: 'Requires `"confirm": true`.',
      tag: TAG,
      body: { schema: BulkActionBody, required: true },
      responses: { 200: { description: 'How many matched, succeeded and failed.', schema: BulkActionResponseSchema } },
    },
    async (c, { body }) => ojsJson(c, await engine.retryDeadLetterBulk(body)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/dead-letter/{id}',
      operationId: 'getDeadLetter',
      summary: 'Get a dead-lettered job',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job.', schema: JobResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.getDeadLetter(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/dead-letter/{id}/retry',
      operationId: 'retryDeadLetter',
      summary: 'Retry a dead-lettered job',
      tag: TAG,
      params: JobIdParams,
      body: { schema: DeadLetterRetryBody, required: false },
      responses: { 200: { description: 'The job, `available` again with `attempt` 0.', schema: JobResponseSchema } },
      errors: [404],
    },
    async (c, { params, body }) => ojsJson(c, await engine.retryDeadLetter(params.id, body)),
  );

  defineRoute(
    deps,
    {
      method: 'delete',
      path: '/ojs/v1/dead-letter/{id}',
      operationId: 'deleteDeadLetter',
      summary: 'Delete a dead-lettered job',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job is removed entirely.', schema: DeadLetterDeleteResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.deleteDeadLetter(params.id)),
  );
}
