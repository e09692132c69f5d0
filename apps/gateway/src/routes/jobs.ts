/** Job routes: PUSH, batch PUSH, INFO, CANCEL, ACTIVATE, progress, and the per-job event stream. */
import { pressureHeaders } from '../http/backpressure.js';
import {
  BatchEnqueueResponseSchema,
  EnqueueRequestSchema,
  EnqueueResponseSchema,
  JobResponseSchema,
  ProgressRequestSchema,
  ProgressResponseSchema,
} from '@ojskit/core/schemas';
import type { EnqueueResponse } from '@ojskit/core';
import { ojsJson } from '../http/media.js';
import { requestHeader } from '../http/native.js';
import { BatchEnqueueBody } from '../schemas/bodies.js';
import { EventStreamQuery, JobIdParams } from '../schemas/inputs.js';
import { streamEvents } from '../sse/event-stream.js';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'Jobs';

export function registerJobRoutes(deps: RouteDeps): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/jobs',
      operationId: 'enqueueJob',
      summary: 'Enqueue a job (PUSH)',
      description: '`201` with `Location` for a new job; `200` with `deduplicated: true` when a unique policy with `ignore` matched.',
      tag: TAG,
      body: { schema: EnqueueRequestSchema, required: true },
      responses: {
        201: { description: 'Job created.', schema: EnqueueResponseSchema },
        200: { description: 'Existing job returned (unique policy `ignore`).', schema: EnqueueResponseSchema },
      },
      errors: [409, 413, 422, 429],
    },
    async (c, { body }) => {
      const response: EnqueueResponse = await engine.enqueue(body);
      const pressure = pressureHeaders(response.queue_pressure);
      if (response.deduplicated) return ojsJson(c, response, 200, pressure);
      return ojsJson(c, response, 201, { Location: `/ojs/v1/jobs/${response.job.id}`, ...pressure });
    },
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/jobs/batch',
      operationId: 'enqueueJobs',
      summary: 'Enqueue jobs atomically (PUSH batch)',
      tag: TAG,
      body: { schema: BatchEnqueueBody, required: true },
      responses: { 201: { description: 'Every job created, in request order.', schema: BatchEnqueueResponseSchema } },
      errors: [409, 413, 422, 429],
    },
    async (c, { body }) => {
      const response = await engine.enqueueBatch(body);
      return ojsJson(c, response, 201, pressureHeaders(response.queue_pressure));
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/jobs/{id}',
      operationId: 'getJob',
      summary: 'Get a job (INFO)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job.', schema: JobResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.getJob(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'delete',
      path: '/ojs/v1/jobs/{id}',
      operationId: 'cancelJob',
      summary: 'Cancel a job (CANCEL)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The cancelled job, with `previous_state`.', schema: JobResponseSchema } },
      errors: [404, 409],
    },
    async (c, { params }) => ojsJson(c, await engine.cancelJob(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'post',
      path: '/ojs/v1/jobs/{id}/activate',
      operationId: 'activateJob',
      summary: 'Activate a pending job (ACTIVATE)',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The job, now `available`.', schema: JobResponseSchema } },
      errors: [404, 409],
    },
    async (c, { params }) => ojsJson(c, await engine.activateJob(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'put',
      path: '/ojs/v1/jobs/{id}/progress',
      operationId: 'setJobProgress',
      summary: 'Report progress of a running job',
      tag: TAG,
      params: JobIdParams,
      body: { schema: ProgressRequestSchema, required: true },
      responses: { 200: { description: 'The stored progress.', schema: ProgressResponseSchema } },
      errors: [404, 409],
    },
    async (c, { params, body }) => ojsJson(c, await engine.setProgress(params.id, body)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/jobs/{id}/progress',
      operationId: 'getJobProgress',
      summary: 'Read the last reported progress',
      tag: TAG,
      params: JobIdParams,
      responses: { 200: { description: 'The progress (`null` fields when never reported).', schema: ProgressResponseSchema } },
      errors: [404],
    },
    async (c, { params }) => ojsJson(c, await engine.getProgress(params.id)),
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/v1/jobs/{id}/events',
      operationId: 'streamJobEvents',
      summary: 'Stream the events of one job (SSE, realtime extension)',
      tag: TAG,
      params: JobIdParams,
      query: EventStreamQuery.pick({ types: true, last_event_id: true }),
      responses: { 200: { description: 'Server-Sent Events; `event:` is the OJS event type, `data:` the event.', contentType: 'text/event-stream' } },
    },
    (c, { params, query }) =>
      streamEvents(
        c,
        engine,
        { jobId: params.id, ...(query.types ? { types: query.types } : {}) },
        requestHeader(c, 'last-event-id') ?? query.last_event_id,
        deps.streams,
        deps.streamOptions,
      ),
  );
}
