/**
 * Serves a built single-page app (the playground) at `/` and again under `/playground/`. The build uses
 * relative asset URLs, so the same files work under both prefixes; unknown non-API paths fall back to
 * `index.html` so client-side routes survive a reload.
 */
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import type { GatewayEnv } from './env.js';

/** Where the app is mounted besides `/`. */
export const SPA_PREFIX = '/playground';

export function serveSinglePageApp(app: Hono<GatewayEnv>, root: string): void {
  // Without the trailing slash, relative asset URLs would resolve against `/`.
  app.get(SPA_PREFIX, (c) => c.redirect(`${SPA_PREFIX}/`, 301));
  app.use(`${SPA_PREFIX}/*`, serveStatic({ root, rewriteRequestPath: (path) => path.slice(SPA_PREFIX.length) || '/' }));
  app.use('/*', serveStatic({ root }));
  app.get('/*', async (c, next) => (c.req.path.startsWith('/ojs/') ? next() : serveStatic({ root, path: 'index.html' })(c, next)));
}
