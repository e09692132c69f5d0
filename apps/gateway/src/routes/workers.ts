/** Worker routes: FETCH, ACK (single and batched), FAIL, BEAT, and the SDK's progress alias. */
import { ojsJson, ojsJsonText } from '../http/media.js';
import {
  AckBatchRequestSchema,
  AckManyResponseSchema,
  AckRequestSchema,
  AckResponseSchema,
  FetchRequestSchema,
  FetchResponseSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
  NackRequestSchema,
  NackResponseSchema,
  ProgressResponseSchema,
} from '@ojskit/core/schemas';
import { servableFetchText } from '../http/servable-jobs.js';
import { WorkerProgressBody } from '../schemas/bodies.js';
import { parseInput } from '../http/validate.js';
import { JobIdField } from '../schemas/inputs.js';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Workers';

export function registerWorkerRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/fetch',
      operationId: 'fetchJobs',
      summary: 'Claim jobs (FETCH)',
      description: 'Returns at once with `{"jobs":[]}` when nothing is available (or while the gateway shuts down).',
      tag: TAG,
      body: { schema: FetchRequestSchema, required: true },
      responses: { 200: { description: 'Claimed jobs, now `active`.', schema: FetchResponseSchema } },
    },
    async (c, { body }) => {
      // A draining gateway hands out no new work; workers finish and ACK what they hold.
      if (deps.isDraining()) return ojsJson(c, { jobs: [] });
      // A client that hangs up during a long-poll ends the wait: jobs claimed for it would stay reserved until
      // their visibility deadline with nobody to work them.
      const result = await engine.fetch(body, { signal: c.req.raw.signal });
      if (result.jobs.length === 0) return ojsJson(c, result);
      return ojsJsonText(c, await servableFetchText(engine, result));
    },
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/ack',
      operationId: 'ackJob',
      summary: 'Complete a job (ACK)',
      tag: TAG,
      body: { schema: AckRequestSchema, required: true },
      responses: { 200: { description: 'The job, now `completed`.', schema: AckResponseSchema } },
      errors: [404, 409],
    },
    async (c, { body }) => ojsJson(c, await engine.ack(body)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/ack/batch',
      operationId: 'ackJobs',
      summary: 'Complete many jobs (ojskit extension)',
      description: 'Each ACK succeeds or fails on its own; per-item errors use the OJS error object. The response is `200` even when items fail.',
      tag: TAG,
      body: { schema: AckBatchRequestSchema, required: true },
      responses: { 200: { description: 'One result per ACK, in request order.', schema: AckManyResponseSchema } },
    },
    async (c, { body }) => ojsJson(c, await engine.ackMany(body)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/nack',
      operationId: 'failJob',
      summary: 'Report a failed attempt (FAIL)',
      tag: TAG,
      body: { schema: NackRequestSchema, required: true },
      responses: { 200: { description: 'The outcome: `retryable`, `discarded` or `available` (requeue).', schema: NackResponseSchema } },
      errors: [404, 409],
    },
    async (c, { body }) => ojsJson(c, await engine.nack(body)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/heartbeat',
      operationId: 'heartbeat',
      summary: 'Extend reservations and receive a directive (BEAT)',
      tag: TAG,
      body: { schema: HeartbeatRequestSchema, required: true },
      responses: { 200: { description: 'Directive and extended jobs.', schema: HeartbeatResponseSchema } },
    },
    async (c, { body }) => ojsJson(c, await engine.heartbeat(body)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/workers/progress',
      operationId: 'reportProgress',
      summary: 'Report progress (SDK alias of PUT /jobs/{id}/progress)',
      description: '`percentage` (0–100) is stored as `progress` = percentage / 100.',
      tag: TAG,
      body: { schema: WorkerProgressBody, required: true },
      responses: { 200: { description: 'The stored progress.', schema: ProgressResponseSchema } },
      errors: [404, 409],
    },
    async (c, { body }) => {
      const { job_id: jobId, percentage, ...rest } = body;
      const { job_id: id } = parseInput(JobIdField, { job_id: jobId }, 'body');
      // The SDK's wire alias: a percentage becomes the protocol's 0..1 fraction; anything else goes to the engine as sent.
      const request = percentage === undefined ? rest : { ...rest, progress: typeof percentage === 'number' ? percentage / 100 : percentage };
      return ojsJson(c, await engine.setProgress(id, request));
    },
  );
}
