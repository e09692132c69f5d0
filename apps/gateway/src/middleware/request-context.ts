/**
 * Per-request protocol headers: the request id (echoed or generated) and `OJS-Version: 1.0` on every
 * response; and rejection of a request `OJS-Version` whose major version is not 1.
 */
import type { MiddlewareHandler } from 'hono';
import { OjsError, newRequestId } from '@ojskit/core';
import type { GatewayEnv } from '../http/env.js';
import { errorResponse } from '../http/errors.js';
import { hasProtocolHeaders, OJS_VERSION } from '../http/media.js';
import { requestHeader } from '../http/native.js';

/** `1`, `1.0`, `1.0.0-rc.1` are major version 1. */
const MAJOR_ONE = /^\s*1(?:\.\d+)*(?:[-+][0-9A-Za-z.-]*)?\s*$/;

/** Sets the request id; runs first, and adds the protocol headers to responses that lack them. */
export function requestContext(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const requestId = requestHeader(c, 'x-request-id') || newRequestId();
    c.set('requestId', requestId);
    await next();
    // JSON responses carry the headers already; the rest (streams, HTML, 204s, static files) get them here.
    if (!hasProtocolHeaders(c.res)) {
      c.res.headers.set('OJS-Version', OJS_VERSION);
      c.res.headers.set('X-Request-Id', requestId);
    }
  };
}

/** `422 unsupported` for a request `OJS-Version` of another major version. */
export function versionCheck(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const version = requestHeader(c, 'ojs-version');
    if (version !== undefined && !MAJOR_ONE.test(version)) {
      return errorResponse(c, OjsError.unsupported(`Unsupported OJS-Version '${version}': this server speaks OJS 1.x.`));
    }
    return next();
  };
}
