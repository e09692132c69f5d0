/**
 * Per-request protocol headers: the request id (echoed or generated) and `OJS-Version: 1.0` on every
 * response; and rejection of a request `OJS-Version` whose major version is not 1.
 */
import type { MiddlewareHandler } from 'hono';
import { OjsError } from '@ojskit/core';
import { newRequestId } from '@ojskit/core/formats';
import type { GatewayEnv } from '../http/env.js';
import { errorResponse } from '../http/errors.js';
import { hasProtocolHeaders, OJS_VERSION } from '../http/media.js';
import { requestHeader } from '../http/native.js';

/** `1`, `1.0`, `1.0.0-rc.1` are major version 1. */
const MAJOR_ONE = /^\s*1(?:\.\d+)*(?:[-+][0-9A-Za-z.-]*)?\s*$/;

/**
 * A client request id the gateway echoes: printable ASCII, at most 200 characters. Anything else (Node reads
 * header bytes as Latin-1, so UTF-8 text arrives mangled) is replaced by a generated id, so the header and
 * `error.request_id` always carry the same value.
 */
const ECHOABLE_REQUEST_ID = /^[\x20-\x7e]{1,200}$/;

/** Sets the request id; runs first, and adds the protocol headers to responses that lack them. */
export function requestContext(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const sent = requestHeader(c, 'x-request-id');
    const requestId = sent !== undefined && ECHOABLE_REQUEST_ID.test(sent) ? sent : newRequestId();
    c.set('requestId', requestId);
    await next();
    // JSON responses carry the headers already; the rest (streams, HTML, 204s, static files) get them here.
    if (!hasProtocolHeaders(c.res)) {
      // A new response with a plain header record rather than `headers.set()` on the old one: Hono answers a
      // HEAD with `new Response(null, getResponse)`, and on Node the lightweight response it copies from
      // still held the header record it was built with, so headers set afterwards were lost.
      const headers: Record<string, string> = {};
      c.res.headers.forEach((value, key) => {
        headers[key] = value;
      });
      headers['ojs-version'] = OJS_VERSION;
      headers['x-request-id'] = requestId;
      c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
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
