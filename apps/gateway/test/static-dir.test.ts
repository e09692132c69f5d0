/** The playground hook: a built single-page app served at `/`, API routes untouched. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY } from './support/backends.js';
import { useHarness } from './support/harness.js';

// Files on disk, no store involved: runs once, on memory.
describe('staticDir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ojskit-spa-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>playground</title>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("spa")');
  const h = useHarness(MEMORY, { staticDir: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves files, falls back to index.html for client routes, and leaves /ojs/* to the API', async () => {
    const index = await h.call('GET', '/');
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('playground');
    expect(index.headers.get('ojs-version')).toBe('1.0');
    const asset = await h.call('GET', '/assets/app.js');
    expect(await asset.text()).toBe('console.log("spa")');
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect(await (await h.call('GET', '/jobs/some/client/route')).text()).toContain('playground');
    const api = await h.json('GET', '/ojs/v1/not-a-route');
    expect(api.res.status).toBe(404);
    expect(api.body.error.code).toBe('not_found');
    expect((await h.json('GET', '/ojs/manifest')).res.status).toBe(200);
  });

  it('serves the same app under /playground/, redirecting /playground to it', async () => {
    const bare = await h.call('GET', '/playground');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/playground/');
    expect(await (await h.call('GET', '/playground/')).text()).toContain('playground');
    expect(await (await h.call('GET', '/playground/assets/app.js')).text()).toBe('console.log("spa")');
    expect(await (await h.call('GET', '/playground/some/route')).text()).toContain('playground');
  });
});
