/**
 * `createGateway`: the OJS HTTP binding over an engine, as a Hono app. Routes validate the HTTP shape and
 * call `OjsApi`; the engine holds every protocol decision.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { Engine, OjsError } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import type { GatewayEngine } from './engine-port.js';
import type { GatewayEnv } from './http/env.js';
import { errorResponse, toOjsError } from './http/errors.js';
import { MethodTable } from './http/method-table.js';
import { serveSinglePageApp } from './http/single-page-app.js';
import { bearerAuth } from './middleware/auth.js';
import { crossOriginGuard } from './middleware/cross-origin.js';
import { browserCors } from './middleware/cors.js';
import { jsonStdoutLogger, requestLog } from './middleware/request-log.js';
import { requestContext, versionCheck } from './middleware/request-context.js';
import { GatewayMetrics } from './metrics/prometheus.js';
import { registerOverdueRoute } from './routes/admin-overdue.js';
import { registerJobHistoryRoute } from './routes/job-history.js';
import { openApiDocumentFactory } from './openapi/document.js';
import { referencePage, rootPage } from './openapi/pages.js';
import { REFERENCE_ASSETS_PATH, registerReferenceAssets } from './openapi/reference-assets.js';
import { DEFAULT_BODY_LIMIT, type GatewayOptions } from './options.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerBulkRoutes } from './routes/bulk.js';
import type { RouteDeps } from './routes/context.js';
import { registerCronRoutes } from './routes/cron.js';
import { registerDeadLetterRoutes } from './routes/dead-letter.js';
import { methodNotAllowed } from './routes/define.js';
import { registerEventRoutes } from './routes/events.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerQueueRoutes } from './routes/queues.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerWorkerRoutes } from './routes/workers.js';
import { registerWorkflowRoutes } from './routes/workflows.js';
import { DEFAULT_EVENT_STREAM_OPTIONS } from './sse/event-stream.js';
import { StreamRegistry } from './sse/stream-registry.js';
import { GATEWAY_VERSION } from './version.js';

/** Lifecycle handles added to the Hono app. */
export interface GatewayControl {
  /** The engine the routes call. */
  readonly engine: GatewayEngine;
  /** Begins a graceful shutdown: FETCH returns no work, `/ready` reports 503, event streams end. */
  drain(): void;
  isDraining(): boolean;
  /** Drains, ends event streams, and closes the engine when the gateway built it. Idempotent. */
  close(): Promise<void>;
}

/** The gateway: a Hono app (`fetch`, `request`, …) plus its lifecycle. */
export type Gateway = OpenAPIHono<GatewayEnv> & GatewayControl;

const CORS_ALLOW_HEADERS = ['Content-Type', 'Accept', 'Authorization', 'X-Request-Id', 'OJS-Version', 'Last-Event-ID'];
const CORS_EXPOSE_HEADERS = ['X-Request-Id', 'OJS-Version', 'Retry-After', 'Location', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/**
 * Creates the gateway.
 * @example
 * import { serve } from '@hono/node-server';
 * import { MemoryDriver } from '@ojskit/memory';
 * const gateway = createGateway({ backend: new MemoryDriver() });
 * serve({ fetch: gateway.fetch, port: 8080 });
 */
export function createGateway(options: GatewayOptions): Gateway {
  const ownsEngine = options.backend !== undefined;
  let engine: GatewayEngine;
  let driver: Driver | undefined;
  if (options.backend !== undefined) {
    driver = options.backend;
    engine = new Engine({ ...options.engineOptions, driver: options.backend });
    if (options.startServices !== false) void Promise.resolve(engine.start?.()).catch(() => undefined);
  } else {
    engine = options.engine;
    driver = options.driver;
  }
  if (options.enableReset && !driver) throw new Error('createGateway: enableReset needs a driver (pass `backend`, or `driver` next to `engine`).');

  const app = new OpenAPIHono<GatewayEnv>();
  const methods = new MethodTable();
  const streams = new StreamRegistry();
  const metrics = new GatewayMetrics(engine);
  let draining = false;

  app.use('*', requestContext());
  if (options.logger !== false)
    app.use(
      '*',
      requestLog(options.logger ?? jsonStdoutLogger, (method, status) => metrics.countRequest(method, status)),
    );
  else
    app.use('*', async (c, next) => {
      await next();
      metrics.countRequest(c.req.method, c.res.status);
    });
  // No CORS unless asked: a wildcard would let any web page drive the API from a visitor's browser.
  if (options.corsOrigin !== undefined && options.corsOrigin !== false) {
    app.use(
      '*',
      browserCors({
        origin: options.corsOrigin,
        allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        allowHeaders: CORS_ALLOW_HEADERS,
        exposeHeaders: CORS_EXPOSE_HEADERS,
        maxAgeSeconds: 600,
      }),
    );
  }
  app.use('*', crossOriginGuard(options.corsOrigin));
  app.use('*', versionCheck());
  if (options.apiKey !== undefined) {
    const keys = typeof options.apiKey === 'string' ? [options.apiKey] : [...options.apiKey];
    if (keys.length === 0 || keys.some((key) => key.length === 0)) throw new Error('createGateway: apiKey must be non-empty.');
    app.use('/ojs/*', bearerAuth(keys));
  }
  // Bodies are read (and limited) by the routes that take one: see `http/body.ts`.
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (!(Number.isInteger(limit) && limit > 0)) throw new Error('createGateway: bodyLimit must be a positive integer.');

  const deps: RouteDeps = {
    app,
    methods,
    bodyLimit: limit,
    engine,
    streams,
    streamOptions: { ...DEFAULT_EVENT_STREAM_OPTIONS, ...options.events },
    isDraining: () => draining,
  };
  registerSystemRoutes(deps, metrics);
  // Before the job routes: `/jobs/bulk` is a literal segment, not a job id.
  registerBulkRoutes(deps);
  registerJobRoutes(deps);
  registerJobHistoryRoute(deps);
  registerWorkerRoutes(deps);
  registerQueueRoutes(deps);
  registerDeadLetterRoutes(deps);
  registerCronRoutes(deps);
  registerWorkflowRoutes(deps);
  registerEventRoutes(deps);
  registerOverdueRoute(deps);
  registerAdminRoutes(deps, { metrics, ...(options.enableReset && driver ? { resetDriver: driver } : {}) });

  const document = openApiDocumentFactory(app, { version: GATEWAY_VERSION, auth: options.apiKey !== undefined });
  // The OpenAPI document is plain JSON for API tooling, not an OJS resource.
  app.get('/ojs/v1/openapi.json', (c) => c.body(JSON.stringify(document()), 200, { 'Content-Type': 'application/json' }));
  app.get('/ojs/v1/docs', (c) => c.html(referencePage('/ojs/v1/openapi.json', REFERENCE_ASSETS_PATH)));
  registerReferenceAssets(app, '/ojs/v1/openapi.json');
  methods.add('GET', '/ojs/v1/openapi.json');
  methods.add('GET', '/ojs/v1/docs');

  if (options.staticDir !== undefined) {
    serveSinglePageApp(app, options.staticDir);
  } else {
    app.get('/', (c) => c.html(rootPage(GATEWAY_VERSION)));
    methods.add('GET', '/');
  }

  app.notFound((c) => {
    const allowed = methods.allowed(c.req.path);
    // OPTIONS (without CORS, which answers preflights itself) lists the methods, as Allow promises it can.
    if (allowed.length > 0 && c.req.method === 'OPTIONS') return c.body(null, 204, { Allow: allowed.join(', ') });
    if (allowed.length > 0) return methodNotAllowed(c, allowed);
    return errorResponse(
      c,
      new OjsError('not_found', `Route ${c.req.method} ${c.req.path} not found.`, { details: { resource_type: 'route', resource_id: c.req.path } }),
    );
  });
  app.onError((error, c) => {
    const ojsError = toOjsError(error);
    if (ojsError.status >= 500) c.set('failure', error);
    return errorResponse(c, ojsError);
  });

  let closing: Promise<void> | undefined;
  const control: GatewayControl = {
    engine,
    drain: () => {
      draining = true;
      streams.closeAll();
    },
    isDraining: () => draining,
    close: () => {
      closing ??= (async () => {
        control.drain();
        metrics.close();
        if (ownsEngine) await engine.close?.();
      })();
      return closing;
    },
  };
  return Object.assign(app, control);
}
