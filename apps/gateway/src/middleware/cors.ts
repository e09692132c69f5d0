/**
 * CORS for browsers (the playground, dashboards). Only requests carrying `Origin` get CORS headers: workers
 * and SDKs never send it, so they pay nothing. Never `*` together with credentials (none are allowed).
 */
import type { MiddlewareHandler } from 'hono';
import type { GatewayEnv } from '../http/env.js';
import { OJS_VERSION } from '../http/media.js';
import { requestHeader } from '../http/native.js';

export interface CorsOptions {
  /** `'*'` or the allowed origins. */
  origin: string | readonly string[];
  allowMethods: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeSeconds: number;
}

export function browserCors(options: CorsOptions): MiddlewareHandler<GatewayEnv> {
  const any = options.origin === '*';
  const allowed = new Set(typeof options.origin === 'string' ? [options.origin] : options.origin);
  const methods = options.allowMethods.join(',');
  const allowHeaders = options.allowHeaders.join(',');
  const exposeHeaders = options.exposeHeaders.join(',');
  return async (c, next) => {
    const origin = requestHeader(c, 'origin');
    if (origin === undefined) return next();
    const allowOrigin = any ? '*' : allowed.has(origin) ? origin : undefined;
    if (c.req.method === 'OPTIONS' && requestHeader(c, 'access-control-request-method') !== undefined) {
      const headers: Record<string, string> = { 'OJS-Version': OJS_VERSION, 'X-Request-Id': c.get('requestId') };
      if (!any) headers['Vary'] = 'Origin';
      if (allowOrigin) {
        headers['Access-Control-Allow-Origin'] = allowOrigin;
        headers['Access-Control-Allow-Methods'] = methods;
        headers['Access-Control-Allow-Headers'] = allowHeaders;
        headers['Access-Control-Max-Age'] = String(options.maxAgeSeconds);
      }
      return c.body(null, 204, headers);
    }
    await next();
    if (!any) c.res.headers.append('Vary', 'Origin');
    if (allowOrigin) {
      c.res.headers.set('Access-Control-Allow-Origin', allowOrigin);
      c.res.headers.set('Access-Control-Expose-Headers', exposeHeaders);
    }
  };
}
