/** Workflow routes (level 3). */
import { ojsJson } from '../http/media.js';
import { WorkflowBody } from '../schemas/bodies.js';
import { WorkflowIdParams } from '../schemas/inputs.js';
import { WorkflowResponseSchema } from '@ojskit/core/schemas';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Workflows';

export function registerWorkflowRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workflows',
      operationId: 'createWorkflow',
      summary: 'Create a chain, group or batch',
      tag: TAG,
      body: { schema: WorkflowBody, required: true },
      responses: { 201: { description: 'The workflow, `running`.', schema: WorkflowResponseSchema } },
      errors: [422],
    },
    async (c, { body }) => {
      const response = await engine.createWorkflow(body);
      return ojsJson(c, response, 201, { Location: `/ojs/v1/workflows/${response.id}` });
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/workflows/{id}',
      operationId: 'getWorkflow',
      summary: 'Get a workflow',
      tag: TAG,
      params: WorkflowIdParams,
      responses: { 200: { description: 'The workflow.', schema: WorkflowResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.getWorkflow(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'delete',
      path: '/ojs/v1/workflows/{id}',
      operationId: 'cancelWorkflow',
      summary: 'Cancel a workflow',
      tag: TAG,
      params: WorkflowIdParams,
      responses: { 200: { description: 'The workflow, `cancelled`.', schema: WorkflowResponseSchema } },
      errors: [404, 409],
    },
    async (c, { params }) => ojsJson(c, await engine.cancelWorkflow(params.id)),
  );
}
