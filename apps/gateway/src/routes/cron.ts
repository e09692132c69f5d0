/** Cron routes (level 2). */
import { ojsJson } from '../http/media.js';
import { CronPatchBody, CronRegisterBody } from '../schemas/bodies.js';
import { CronListQuery, CronNameParams } from '../schemas/inputs.js';
import { CronDeleteResponseSchema, CronListResponseSchema, CronResponseSchema } from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Cron';

export function registerCronRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/cron',
      operationId: 'registerCron',
      summary: 'Register (or replace) a cron',
      description: 'Accepts the template form (`expression`, `job_template`) and the flat form (`cron`, `type`, `args`, `options`).',
      tag: TAG,
      body: { schema: CronRegisterBody, required: true },
      responses: {
        201: { description: 'A new cron.', schema: CronResponseSchema },
        200: { description: 'An existing cron of that name was replaced.', schema: CronResponseSchema },
      },
    },
    async (c, { body }) => {
      const { created, ...response } = await engine.registerCron(body);
      return ojsJson(c, response, created ? 201 : 200);
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/cron',
      operationId: 'listCron',
      summary: 'List crons',
      tag: TAG,
      query: CronListQuery,
      responses: { 200: { description: 'Registered crons.', schema: CronListResponseSchema } },
    },
    async (c, { query }) => ojsJson(c, await engine.listCron(query)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/cron/{name}',
      operationId: 'getCron',
      summary: 'Get a cron',
      tag: TAG,
      params: CronNameParams,
      responses: { 200: { description: 'The cron.', schema: CronResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.getCron(params.name)),
  );

  defineRoute(
    deps,
    {
      method: 'patch',
      path: '/ojs/v1/cron/{name}',
      operationId: 'updateCron',
      summary: 'Enable or disable a cron',
      tag: TAG,
      params: CronNameParams,
      body: { schema: CronPatchBody, required: true },
      responses: { 200: { description: 'The cron.', schema: CronResponseSchema } },
      errors: [404],
    },
    async (c, { params, body }) => ojsJson(c, await engine.updateCron(params.name, body)),
  );

  defineRoute(
    deps,
    {
      method: 'delete',
      path: '/ojs/v1/cron/{name}',
      operationId: 'deleteCron',
      summary: 'Delete a cron (already enqueued jobs are untouched)',
      tag: TAG,
      params: CronNameParams,
      responses: { 200: { description: 'The deleted cron.', schema: CronDeleteResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.deleteCron(params.name)),
  );
}
