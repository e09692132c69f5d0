/** The OpenAPI 3.1 document of the gateway, generated from the zod schemas the routes are declared with. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { GatewayEnv } from '../http/env.js';

export interface DocumentInfo {
  version: string;
  /** Whether bearer auth is enabled (adds the security scheme). */
  auth: boolean;
}

/** Builds the document once, on first request (every route is registered by then). */
export function openApiDocumentFactory(app: OpenAPIHono<GatewayEnv>, info: DocumentInfo): () => unknown {
  let cached: unknown;
  return () => {
    if (cached === undefined) {
      if (info.auth) {
        app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
      }
      cached = app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'ojskit gateway: Open Job Spec HTTP API',
          version: info.version,
          description:
            'OJS 1.0 HTTP binding, conformance levels 0–4, plus the dead-letter, admin, progress, events and realtime (SSE) extensions. ' +
            'Every JSON response is `application/openjobspec+json`; every error is the OJS error envelope.',
        },
        ...(info.auth ? { security: [{ bearerAuth: [] }] } : {}),
      });
    }
    return cached;
  };
}
