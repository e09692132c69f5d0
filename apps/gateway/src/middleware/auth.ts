/** Optional bearer-token auth. The manifest, health, readiness, metrics and API docs stay open. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { OjsError } from '@ojskit/core';
import type { GatewayEnv } from '../http/env.js';
import { errorResponse } from '../http/errors.js';
import { requestHeader } from '../http/native.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Paths served without credentials. */
export function isOpenPath(path: string): boolean {
  return (
    path === '/' ||
    path === '/ojs/manifest' ||
    path === '/health' ||
    path === '/ready' ||
    path === '/metrics' ||
    path === '/ojs/v1/health' ||
    path === '/ojs/v1/openapi.json' ||
    path === '/ojs/v1/docs' ||
    !path.startsWith('/ojs/')
  );
}

/** Accepts `Authorization: Bearer <key>` for any of `keys` (compared in constant time). */
export function bearerAuth(keys: readonly string[]): MiddlewareHandler<GatewayEnv> {
  const expected = keys.map(digest);
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' || isOpenPath(c.req.path)) return next();
    const header = requestHeader(c, 'authorization');
    const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    const given = match ? digest(match[1]!) : undefined;
    if (!given || !expected.some((key) => timingSafeEqual(key, given))) {
      return errorResponse(
        c,
        new OjsError('unauthenticated', header ? 'Invalid credentials.' : 'Authentication required: send Authorization: Bearer <api key>.'),
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
    return next();
  };
}
