/**
 * Refusing state changes a web page asks for from another origin. A browser sends some cross-origin requests
 * (a POST with no body, or a `text/plain` one) without a CORS preflight, so CORS headers alone cannot stop a
 * page from enqueueing jobs or pausing queues through a visitor's browser; the `Origin` header it adds can.
 */
import type { MiddlewareHandler } from 'hono';
import { OjsError } from '@ojskit/core';
import type { GatewayEnv } from '../http/env.js';
import { errorResponse } from '../http/errors.js';
import { requestHeader } from '../http/native.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * `403 permission_denied` for a POST/PUT/PATCH/DELETE whose `Origin` is neither this server's own (same
 * host) nor one of `allowed` (`'*'`: any). Requests without `Origin` (workers, SDKs, curl) pass untouched.
 */
export function crossOriginGuard(allowed: string | readonly string[] | false | undefined): MiddlewareHandler<GatewayEnv> {
  const any = allowed === '*';
  const origins = new Set(typeof allowed === 'string' ? [allowed] : allowed === false || allowed === undefined ? [] : allowed);
  return async (c, next) => {
    if (any || SAFE_METHODS.has(c.req.method)) return next();
    const origin = requestHeader(c, 'origin');
    if (origin === undefined || origins.has(origin)) return next();
    const host = requestHeader(c, 'host');
    if (host !== undefined && hostOf(origin) === host) return next();
    return errorResponse(
      c,
      new OjsError('permission_denied', `Cross-origin ${c.req.method} from '${origin}' is not allowed.`, {
        details: { origin },
        hint: 'Serve the page from this server, or add its origin to --cors-origin (OJSKIT_CORS_ORIGIN).',
      }),
    );
  };
}
