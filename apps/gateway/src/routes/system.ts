/** System routes: manifest, health (two paths), readiness and Prometheus metrics. */
import { ojsJson } from '../http/media.js';
import type { GatewayMetrics } from '../metrics/prometheus.js';
import { HealthResponseSchema, ManifestSchema } from '@ojskit/core/schemas';
import { z } from '@hono/zod-openapi';
import type { GatewayContext } from '../http/env.js';
import type { RouteDeps } from './context.js';
import { defineRoute } from './define.js';

const TAG = 'System';

export function registerSystemRoutes(deps: RouteDeps, metrics: GatewayMetrics): void {
  const { engine } = deps;

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ojs/manifest',
      operationId: 'manifest',
      summary: 'Conformance manifest',
      tag: TAG,
      responses: { 200: { description: 'What this server implements.', schema: ManifestSchema } },
    },
    async (c) => {
      const manifest = await engine.manifest();
      const origin = new URL(c.req.url).origin;
      return ojsJson(c, {
        ...manifest,
        endpoints: { base_url: `${origin}/ojs/v1`, manifest: `${origin}/ojs/manifest`, health: `${origin}/ojs/v1/health` },
      });
    },
  );

  const health = async (c: GatewayContext): Promise<Response> => {
    try {
      const report = await engine.health();
      // A draining gateway still answers, but says so: load balancers stop sending it work (graceful-shutdown extension).
      if (report.status === 'ok' && deps.isDraining()) return ojsJson(c, { ...report, status: 'degraded', draining: true }, 503, { 'Retry-After': '5' });
      return ojsJson(c, report, report.status === 'ok' ? 200 : 503, report.status === 'ok' ? {} : { 'Retry-After': '5' });
    } catch (error) {
      return ojsJson(
        c,
        { status: 'unhealthy', version: '1.0', backend: { status: 'unhealthy', error: error instanceof Error ? error.message : String(error) } },
        503,
        { 'Retry-After': '5' },
      );
    }
  };
  for (const path of ['/ojs/v1/health', '/health']) {
    defineRoute(
      deps,
      {
        method: 'get',
        path,
        operationId: path === '/health' ? 'healthRoot' : 'health',
        summary: 'Health of the gateway and its backend',
        tag: TAG,
        responses: {
          200: { description: 'Healthy.', schema: HealthResponseSchema },
          503: {
            description: 'Backend unhealthy (`degraded`/`unhealthy`), or the gateway is draining (`degraded`, `draining: true`).',
            schema: HealthResponseSchema,
          },
        },
      },
      health,
    );
  }

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/ready',
      operationId: 'ready',
      summary: 'Readiness: the backend accepts work and the gateway is not shutting down',
      tag: TAG,
      responses: {
        200: { description: 'Ready.', schema: z.object({ status: z.literal('ready') }) },
        503: { description: 'Not ready.', schema: z.object({ status: z.literal('not_ready') }) },
      },
    },
    async (c) => {
      let ok = !deps.isDraining();
      if (ok) {
        try {
          ok = (await engine.health()).status === 'ok';
        } catch {
          ok = false;
        }
      }
      return ok ? ojsJson(c, { status: 'ready' }) : ojsJson(c, { status: 'not_ready' }, 503, { 'Retry-After': '5' });
    },
  );

  defineRoute(
    deps,
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      tag: TAG,
      responses: { 200: { description: 'Prometheus text exposition.', schema: z.string(), contentType: 'text/plain' } },
    },
    async (c) => c.body(await metrics.render(), 200, { 'Content-Type': 'text/plain' }),
  );
}
