/** The API reference: Swagger UI from its npm package, served by the gateway (no CDN), open without credentials. */
import { describe, expect, it } from 'vitest';
import { MEMORY } from './support/backends.js';
import { useHarness } from './support/harness.js';

describe('API reference page', () => {
  const h = useHarness(MEMORY, { apiKey: 'secret' });

  it('loads Swagger UI and its start-up script from this server only, pointing at the OpenAPI document', async () => {
    const page = await (await h.call('GET', '/ojs/v1/docs')).text();
    const urls = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.every((u) => u.startsWith('/'))).toBe(true);
    expect(urls).toContain('/docs/swagger-ui/swagger-ui-bundle.js');
    const bundle = await h.call('GET', '/docs/swagger-ui/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    const css = await h.call('GET', '/docs/swagger-ui/swagger-ui.css');
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(await (await h.call('GET', '/docs/swagger-ui/init.js')).text()).toContain('"/ojs/v1/openapi.json"');
    expect((await h.call('GET', '/docs/swagger-ui/package.json')).status).toBe(404);
  });
});
