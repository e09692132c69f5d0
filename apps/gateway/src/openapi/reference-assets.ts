/**
 * The API reference's renderer, Swagger UI, served from its npm package (swagger-ui-dist) by the gateway
 * itself: no CDN, so the reference works offline and behind firewalls. Only the files the page loads are
 * served, under a path outside `/ojs/` so it needs no credentials.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import type { GatewayEnv } from '../http/env.js';

/** Where the renderer's files are served. */
export const REFERENCE_ASSETS_PATH = '/docs/swagger-ui';

const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The browser-side start-up script: renders `specUrl` with "try it out" against this same server. */
export function initScript(specUrl: string): string {
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, persistAuthorization: true });\n`;
}

export function registerReferenceAssets(app: Hono<GatewayEnv>, specUrl: string): void {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  app.get(`${REFERENCE_ASSETS_PATH}/init.js`, (c) => c.body(initScript(specUrl), 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get(`${REFERENCE_ASSETS_PATH}/:file`, async (c, next) => {
    const file = c.req.param('file');
    const type = FILES[file];
    if (!type) return next();
    let bytes = cache.get(file);
    if (!bytes) cache.set(file, (bytes = new Uint8Array(await readFile(join(root, file)))));
    return c.body(bytes, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}
