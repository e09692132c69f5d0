/** Bulk operations (bulk-operations extension): enqueue, cancel, retry and delete many jobs with per-item results. */
import { ojsJson } from '../http/media.js';
import { BulkEnqueueBody, BulkJobsBody } from '../schemas/admin.js';
import { BulkEnqueueResponseSchema, BulkJobResponseSchema } from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Bulk';

const ACTIONS = {
  cancel:
    'Cancel many jobs. A filter selects `available`, `scheduled`, `retryable` and `pending` jobs by default; a job that cannot be cancelled is `skipped`.',
  retry: 'Run `retryable` jobs now and revive `discarded` ones (attempts reset). Other states are per-item `409 conflict` failures.',
  delete: 'Delete finished jobs (`completed`, `cancelled`, `discarded`) for good. Other states are per-item `409 conflict` failures.',
} as const;

export function registerBulkRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/jobs/bulk',
      operationId: 'enqueueBulk',
      summary: 'Enqueue many jobs with per-item results',
      description:
        '`partial` (default): `201` when every item was stored, `207` when some failed, `422` (`x_bulk_failed`, items in `details.items`) when all did. ' +
        '`atomic`: all or nothing; a refusal is `422` naming the item (`429 QUEUE_FULL` when a queue bound refused it).',
      tag: TAG,
      body: { schema: BulkEnqueueBody, required: true },
      responses: {
        201: { description: 'Every item stored.', schema: BulkEnqueueResponseSchema },
        207: { description: 'Some items stored, some failed.', schema: BulkEnqueueResponseSchema },
      },
      errors: [413, 422, 429],
    },
    async (c, { body }) => {
      const response = await engine.enqueueBulk(body);
      return ojsJson(c, response, response.failed === 0 ? 201 : 207);
    },
  );

  for (const action of ['cancel', 'retry', 'delete'] as const) {
    defineRoute(
      deps,
      {
        method: 'post',
        path: `/ojs/v1/jobs/bulk/${action}`,
        operationId: `bulk${action.charAt(0).toUpperCase()}${action.slice(1)}Jobs`,
        summary: `Bulk ${action} by \`job_ids\` or by \`filter\` (with \`confirm: true\`)`,
        description: `${ACTIONS[action]} \`200\` when no item failed, \`207\` otherwise.`,
        tag: TAG,
        body: { schema: BulkJobsBody, required: true },
        responses: {
          200: { description: 'Every item done (or skipped).', schema: BulkJobResponseSchema },
          207: { description: 'Some items failed.', schema: BulkJobResponseSchema },
        },
        errors: [413, 422],
      },
      async (c, { body }) => {
        const response = await engine.bulkJobs(action, body);
        return ojsJson(c, response, response.failed === 0 ? 200 : 207);
      },
    );
  }
}
