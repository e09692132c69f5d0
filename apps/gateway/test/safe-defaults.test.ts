/**
 * Security-relevant defaults and protocol edges (issue 25, items 6, 8, 9). Each default here is pinned: a
 * change to it must change this file.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDriver } from '@ojskit/memory';
import { resolveConfig } from '../src/cli/config.js';
import { exposureWarning } from '../src/cli/exposure.js';
import { createGateway, startGateway, type RunningGateway } from '../src/index.js';
import { describeEachBackend, MEMORY } from './support/backends.js';
import { OJS, useHarness } from './support/harness.js';

describe('CLI defaults', () => {
  it('binds loopback and serves no CORS unless asked', () => {
    const { config } = resolveConfig([], {}) as { config: { host: string; corsOrigin: unknown } };
    expect(config.host).toBe('127.0.0.1');
    expect(config.corsOrigin).toBe(false);
    const asked = resolveConfig(['--host', '0.0.0.0', '--cors-origin', '*'], {}) as { config: { host: string; corsOrigin: unknown } };
    expect(asked.config.host).toBe('0.0.0.0');
    expect(asked.config.corsOrigin).toBe('*');
    const fromEnv = resolveConfig([], { OJSKIT_HOST: '::', OJSKIT_CORS_ORIGIN: 'https://a.test' }) as { config: { host: string; corsOrigin: unknown } };
    expect(fromEnv.config.host).toBe('::');
    expect(fromEnv.config.corsOrigin).toEqual(['https://a.test']);
  });

  it('warns loudly when a non-loopback address is served without an API key', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'example.com']) {
      const warning = exposureWarning({ host, apiKeys: [] });
      expect(warning, host).toMatch(/without an API key/);
      expect(warning).toMatch(/--api-key/);
    }
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.8.9.10']) expect(exposureWarning({ host, apiKeys: [] }), host).toBeUndefined();
    expect(exposureWarning({ host: '0.0.0.0', apiKeys: ['k'] })).toBeUndefined();
  });
});

describe('library defaults', () => {
  it('createGateway sends no CORS headers unless corsOrigin is given', async () => {
    const gateway = createGateway({ backend: new MemoryDriver(), logger: false, startServices: false });
    try {
      const preflight = await gateway.request('/ojs/v1/jobs', {
        method: 'OPTIONS',
        headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const simple = await gateway.request('/ojs/manifest', { headers: { Origin: 'http://evil.example' } });
      expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await gateway.close();
    }
  });

  it('a listed origin may change state (and gets CORS headers)', async () => {
    const gateway = createGateway({ backend: new MemoryDriver(), logger: false, startServices: false, corsOrigin: ['https://ui.example'] });
    try {
      const res = await gateway.request('/ojs/v1/queues/listed/pause', { method: 'POST', headers: { Origin: 'https://ui.example', Host: 'localhost:8080' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.example');
      const other = await gateway.request('/ojs/v1/queues/listed/pause', {
        method: 'POST',
        headers: { Origin: 'https://other.example', Host: 'localhost:8080' },
      });
      expect(other.status).toBe(403);
    } finally {
      await gateway.close();
    }
  });
});

/** Every route with a JSON body. */
const BODY_ROUTES: Array<[string, string]> = [
  ['POST', '/ojs/v1/jobs'],
  ['POST', '/ojs/v1/jobs/batch'],
  ['PUT', '/ojs/v1/jobs/0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f/progress'],
  ['POST', '/ojs/v1/workers/fetch'],
  ['POST', '/ojs/v1/workers/ack'],
  ['POST', '/ojs/v1/workers/nack'],
  ['POST', '/ojs/v1/workers/heartbeat'],
  ['POST', '/ojs/v1/cron'],
  ['POST', '/ojs/v1/workflows'],
  ['POST', '/ojs/v1/queues/some-queue/pause'],
  ['POST', '/ojs/v1/dead-letter/retry'],
];

describeEachBackend('JSON content type required on bodies', (backend) => {
  const h = useHarness(backend);

  it.each(BODY_ROUTES)('%s %s: a body without a JSON Content-Type is 415 in the OJS envelope, and changes nothing', async (method, path) => {
    const before = (await h.json('GET', '/ojs/v1/queues')).body.queues.length;
    for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const headers = new Headers();
      if (contentType !== undefined) headers.set('Content-Type', contentType);
      const res = await h.gateway.request(path, {
        method,
        headers,
        body: JSON.stringify({ type: 'x.y', args: [], queues: ['q'], jobs: [{ type: 'x.y', args: [] }] }),
      });
      expect(res.status, `${contentType}`).toBe(415);
      expect(res.headers.get('content-type')).toBe(OJS);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details.field).toBe('Content-Type');
      expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
    expect((await h.json('GET', '/ojs/v1/queues')).body.queues.length).toBe(before);
  });

  it('a cross-origin page cannot change anything, even with no body or a JSON one; same-origin and listed origins can', async () => {
    const q = 'xo-queue';
    for (const [method, path, body] of [
      ['POST', `/ojs/v1/queues/${q}/pause`, undefined],
      ['POST', '/ojs/v1/jobs', JSON.stringify({ type: 'x.y', args: [], queue: q })],
      ['DELETE', '/ojs/v1/jobs/0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f', undefined],
    ] as const) {
      const headers: Record<string, string> = { Origin: 'http://evil.example', Host: 'localhost:8080' };
      if (body) headers['Content-Type'] = 'application/json';
      const res = await h.gateway.request(path, { method, headers, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      const error = ((await res.json()) as any).error;
      expect(error.code).toBe('permission_denied');
      expect(error.hint).toMatch(/--cors-origin/);
    }
    const stats = await h.json('GET', `/ojs/v1/queues/${q}/stats`);
    expect(stats.body.paused).toBe(false);
    expect(stats.body.stats.available).toBe(0);
    const same = await h.gateway.request(`/ojs/v1/queues/${q}/pause`, { method: 'POST', headers: { Origin: 'http://localhost:8080', Host: 'localhost:8080' } });
    expect(same.status).toBe(200);
    // Reading stays open to any origin (nothing changes).
    const read = await h.gateway.request(`/ojs/v1/queues/${q}/stats`, { headers: { Origin: 'http://evil.example' } });
    expect(read.status).toBe(200);
  });

  it('an empty body needs no Content-Type where the body is optional', async () => {
    const res = await h.gateway.request('/ojs/v1/queues/ct-empty/pause', { method: 'POST' });
    expect(res.status).toBe(200);
  });
});

describeEachBackend(
  'method and header edges',
  (backend) => {
    const h = useHarness(backend);

    it('405 names only the methods the path serves, with a hint that fits (no details.field)', async () => {
      for (const [method, path, allow] of [
        ['PUT', '/ojs/v1/jobs/batch', 'POST, OPTIONS'],
        ['GET', '/ojs/v1/jobs/batch', 'POST, OPTIONS'],
        ['DELETE', '/ojs/v1/jobs/batch', 'POST, OPTIONS'],
        ['PATCH', '/ojs/v1/jobs', 'POST, OPTIONS'],
        ['DELETE', '/ojs/v1/dead-letter/stats', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const { res, body } = await h.json(method, path);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect(body.error.code).toBe('invalid_request');
        expect(body.error.details.allowed.join(', ')).toBe(allow);
        expect(body.error.details.field).toBeUndefined();
        expect(body.error.hint).not.toMatch(/details\.field/);
        expect(body.error.hint).toMatch(/Allow/);
      }
    });

    it('OPTIONS without CORS answers 204 with the Allow header it advertises', async () => {
      const res = await h.call('OPTIONS', '/ojs/v1/jobs/batch');
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      expect(res.headers.get('ojs-version')).toBe('1.0');
    });

    it('HEAD on /metrics, /, openapi.json and docs carries OJS-Version and X-Request-Id', async () => {
      for (const path of ['/metrics', '/', '/ojs/v1/openapi.json', '/ojs/v1/docs', '/ojs/manifest', '/health']) {
        const res = await h.call('HEAD', path, undefined, { 'X-Request-Id': 'head-1' });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('ojs-version'), path).toBe('1.0');
        expect(res.headers.get('x-request-id'), path).toBe('head-1');
      }
    });

    it('a request id that is not printable ASCII (or over 200 characters) is replaced; header and body always agree', async () => {
      for (const id of ['caf\u00e9-42', 'a\u00ff', 'x'.repeat(201), 'tab\there']) {
        const res = await h.call('GET', '/ojs/v1/jobs/nope', undefined, { 'X-Request-Id': id });
        const header = res.headers.get('x-request-id')!;
        expect(header).toMatch(/^req_/);
        expect(((await res.json()) as any).error.request_id).toBe(header);
      }
      const ok = await h.call('GET', '/ojs/v1/jobs/nope', undefined, { 'X-Request-Id': 'Client-Req 42 ~!' });
      expect(ok.headers.get('x-request-id')).toBe('Client-Req 42 ~!');
    });
  },
  [MEMORY],
);

describe('requests Node refuses before routing', () => {
  let running: RunningGateway;
  beforeAll(async () => {
    running = await startGateway(createGateway({ backend: new MemoryDriver(), logger: false, startServices: false }), { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await running.shutdown();
  });

  /** Sends raw bytes, returns the raw response. */
  function raw(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: running.port });
      let out = '';
      socket.on('data', (d) => (out += d.toString('latin1')));
      socket.on('end', () => resolve(out));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
      socket.write(text);
    });
  }

  function envelopeOf(response: string): any {
    const [head, ...rest] = response.split('\r\n\r\n');
    expect(head).toMatch(/content-type: application\/openjobspec\+json/i);
    expect(head).toMatch(/ojs-version: 1\.0/i);
    const id = /x-request-id: (\S+)/i.exec(head!)?.[1];
    const body = JSON.parse(rest.join('\r\n\r\n'));
    expect(body.error.request_id).toBe(id);
    return body;
  }

  it('an unknown method is 400 in the OJS envelope', async () => {
    const response = await raw('FOO /ojs/v1/jobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400/);
    expect(envelopeOf(response).error.code).toBe('invalid_request');
  });

  it('a URL over the header limit is 431 in the OJS envelope', async () => {
    const response = await raw(`GET /ojs/v1/jobs/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 431/);
    expect(envelopeOf(response).error.code).toBe('invalid_request');
  });

  it('HEAD over the wire carries OJS-Version and X-Request-Id on every kind of response', async () => {
    for (const path of ['/metrics', '/', '/ojs/v1/openapi.json', '/ojs/v1/docs', '/ojs/manifest']) {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: running.port, path, method: 'HEAD' }, (res) => {
          res.resume();
          resolve({ status: res.statusCode, ...res.headers });
        })
          .on('error', reject)
          .end();
      });
      expect(headers['status'], path).toBe(200);
      expect(headers['ojs-version'], path).toBe('1.0');
      expect(headers['x-request-id'], path).toBeTruthy();
    }
  });

  it('still serves ordinary requests on the same server', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: running.port, path: '/ojs/manifest' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
  });
});
