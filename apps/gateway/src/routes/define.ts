/**
 * `defineRoute`: one declaration per endpoint that both registers it in the OpenAPI document and serves it,
 * validating path and query with the same zod schemas and reading the body as a JSON object.
 */
import { createRoute, type OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import type { GatewayContext, GatewayEnv } from '../http/env.js';
import { hasRequestBody, readJsonObject, requireJsonMediaType } from '../http/body.js';
import { readBodyText } from '../http/native.js';
import { errorResponse } from '../http/errors.js';
import { OJS_MEDIA_TYPE } from '../http/media.js';
import type { MethodTable } from '../http/method-table.js';
import { parseInput } from '../http/validate.js';
import { OjsError } from '@ojskit/core';
import { ErrorEnvelopeSchema } from '@ojskit/core/schemas';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType> {
  method: HttpMethod;
  /** OpenAPI path syntax: `/ojs/v1/jobs/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  /** The documented body; `required: false` reads an empty body as `{}`. */
  body?: { schema: z.ZodType; required: boolean; description?: string };
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  /** Error statuses this route documents besides 400/401/500. */
  errors?: number[];
}

export interface RouteInput<P, Q> {
  params: P;
  query: Q;
  body: Record<string, unknown>;
}

type Empty = z.ZodObject<Record<string, never>>;

/** Where routes are defined: the app, and the table that answers 405s. */
export interface RouteSink {
  app: OpenAPIHono<GatewayEnv>;
  methods: MethodTable;
  /** Largest request body in bytes. */
  bodyLimit: number;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`invalid_request`, `invalid_payload`).',
  401: 'Missing or invalid credentials (when auth is enabled).',
  404: 'Not found.',
  409: 'Conflict (`conflict`, `duplicate`).',
  413: 'Body over the size limit (`payload_too_large`).',
  422: 'Semantically invalid (`validation_error`) or unsupported.',
  429: 'Queue full (`QUEUE_FULL`, backpressure extension): `Retry-After`, `X-OJS-Queue-Depth`, `X-OJS-Queue-Bound`.',
  500: 'Backend failure (`backend_error`).',
};

/** Multi-valued query parameters (`types=a&types=b`) joined with commas, like `types=a,b`. */
function queryRecord(c: GatewayContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(c.req.queries())) out[key] = values.join(',');
  return out;
}

export function defineRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty>(
  sink: RouteSink,
  spec: RouteSpec<P, Q>,
  handler: (c: GatewayContext, input: RouteInput<z.output<P>, z.output<Q>>) => Response | Promise<Response>,
): void {
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { [response.contentType ?? OJS_MEDIA_TYPE]: { schema: response.schema } } } : {}),
    };
  }
  for (const status of [400, 401, ...(spec.errors ?? []), 500]) {
    responses[String(status)] ??= { description: ERROR_DESCRIPTIONS[status] ?? 'Error.', content: { [OJS_MEDIA_TYPE]: { schema: ErrorEnvelopeSchema } } };
  }
  const request: NonNullable<RouteConfig['request']> = {};
  if (spec.params) request.params = spec.params as unknown as NonNullable<RouteConfig['request']>['params'];
  if (spec.query) request.query = spec.query as unknown as NonNullable<RouteConfig['request']>['query'];
  if (spec.body) {
    request.body = {
      required: spec.body.required,
      ...(spec.body.description ? { description: spec.body.description } : {}),
      content: { [OJS_MEDIA_TYPE]: { schema: spec.body.schema }, 'application/json': { schema: spec.body.schema } },
    };
  }
  sink.app.openAPIRegistry.registerPath(
    createRoute({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      request,
      responses,
    }),
  );

  const honoPath = spec.path.replace(/\{([^}]+)\}/g, ':$1');
  sink.methods.add(spec.method, honoPath);
  sink.app.on(spec.method.toUpperCase(), honoPath, async (c) => {
    let params = {} as z.output<P>;
    if (spec.params) {
      // `GET /jobs/batch` lands on `/jobs/:id`, but the literal `/jobs/batch` (POST only) wins: a 405.
      const literal = sink.methods.allowed(c.req.path, true);
      if (literal.length > 0) return methodNotAllowed(c, literal);
      params = parseInput(spec.params, c.req.param(), 'path');
    }
    const query = (spec.query ? parseInput(spec.query, queryRecord(c), 'query') : {}) as z.output<Q>;
    // A route that reads no body still refuses a non-JSON one: a cross-origin text/plain POST must not act.
    if (!spec.body && spec.method !== 'get' && hasRequestBody(c) && (await readBodyText(c, sink.bodyLimit)).trim().length > 0) requireJsonMediaType(c);
    const body = spec.body ? await readJsonObject(c, spec.body.required, sink.bodyLimit) : {};
    return handler(c, { params, query, body });
  });
}

/** `405` with the error envelope and an `Allow` header. */
export function methodNotAllowed(c: GatewayContext, allowed: string[]): Response {
  return errorResponse(
    c,
    new OjsError('invalid_request', `Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}.`, {
      status: 405,
      details: { method: c.req.method, allowed },
      hint: 'Use one of the methods in the Allow header.',
    }),
    { Allow: allowed.join(', ') },
  );
}
