/** Protocol headers on every response: media type, OJS-Version, request ids, Location, CORS, version negotiation. */
import { expect, it } from 'vitest';
import { isUuidV7 } from '@ojskit/core/formats';
import { describeEachBackend } from './support/backends.js';
import { OJS, testHarness, useHarness } from './support/harness.js';
import { push, queueName } from './support/flows.js';

describeEachBackend('headers', (backend) => {
  // CORS is off by default (safe-defaults.test.ts pins that); these cases check its headers when asked for.
  const h = useHarness(backend, { corsOrigin: '*' });

  const samples: Array<[string, string, unknown?]> = [
    ['POST', '/ojs/v1/jobs', { type: 'hdr.job', args: [] }],
    ['GET', '/ojs/manifest'],
    ['GET', '/ojs/v1/health'],
    ['GET', '/ojs/v1/queues'],
    ['GET', '/ojs/v1/jobs/0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f'],
    ['POST', '/ojs/v1/workers/fetch', '{not json'],
    ['GET', '/nowhere'],
    ['PATCH', '/ojs/v1/jobs'],
  ];

  it.each(samples)('%s %s: exact JSON media type, OJS-Version 1.0 and a request id', async (method, path, body) => {
    const res = await h.call(method, path, body);
    expect(res.headers.get('content-type')).toBe(OJS);
    expect(res.headers.get('ojs-version')).toBe('1.0');
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^req_/);
    expect(isUuidV7(id.slice(4))).toBe(true);
    const json = (await res.json()) as any;
    if (res.status >= 400) expect(json.error.request_id).toBe(id);
  });

  it('non-JSON responses carry OJS-Version too (metrics, docs, root, HEAD, preflight)', async () => {
    for (const [method, path] of [
      ['GET', '/metrics'],
      ['GET', '/ojs/v1/docs'],
      ['GET', '/'],
      ['HEAD', '/ojs/manifest'],
      ['OPTIONS', '/ojs/v1/jobs'],
    ] as const) {
      const res = await h.call(method, path, undefined, method === 'OPTIONS' ? { Origin: 'http://x.test', 'Access-Control-Request-Method': 'POST' } : {});
      expect(res.headers.get('ojs-version'), `${method} ${path}`).toBe('1.0');
      expect(res.headers.get('x-request-id'), `${method} ${path}`).toBeTruthy();
    }
    expect((await h.call('GET', '/metrics')).headers.get('content-type')).toBe('text/plain');
  });

  it('echoes the client request id verbatim, whatever the header casing', async () => {
    for (const header of ['X-Request-Id', 'X-Request-ID', 'x-request-id']) {
      const res = await h.call('GET', '/ojs/v1/jobs/nope', undefined, { [header]: 'Client-Req 42' });
      expect(res.headers.get('x-request-id')).toBe('Client-Req 42');
      expect(((await res.json()) as any).error.request_id).toBe('Client-Req 42');
    }
  });

  it('accepts any OJS-Version with major 1; another major is 422 unsupported', async () => {
    for (const version of ['1', '1.0', '1.0.0-rc.1', '1.2']) {
      const res = await h.call('GET', '/ojs/v1/queues', undefined, { 'OJS-Version': version });
      expect(res.status, version).toBe(200);
    }
    for (const version of ['2.0', '0.9', 'banana']) {
      const res = await h.call('POST', '/ojs/v1/jobs', { type: 'x.y', args: [] }, { 'OJS-Version': version });
      expect(res.status, version).toBe(422);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('unsupported');
      expect(res.headers.get('ojs-version')).toBe('1.0');
    }
    expect((await h.engine.listQueues()).queues.length).toBe(1); // only the job pushed by the first case above
  });

  it('sets Location on 201 from POST /jobs and POST /workflows', async () => {
    const res = await h.call('POST', '/ojs/v1/jobs', { type: 'hdr.job', args: [] });
    const { job } = (await res.json()) as any;
    expect(res.headers.get('location')).toBe(`/ojs/v1/jobs/${job.id}`);
    const wf = await h.call('POST', '/ojs/v1/workflows', { type: 'chain', steps: [{ type: 'a.b', args: [] }] });
    expect(wf.status).toBe(201);
    expect(wf.headers.get('location')).toBe(`/ojs/v1/workflows/${((await wf.json()) as any).id}`);
  });

  it('answers CORS preflight with the protocol headers and methods', async () => {
    const res = await h.call('OPTIONS', '/ojs/v1/jobs', undefined, {
      Origin: 'http://app.test',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,ojs-version,x-request-id',
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE,OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toContain('OJS-Version');
    const simple = await h.call('GET', '/ojs/v1/queues', undefined, { Origin: 'http://app.test' });
    expect(simple.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    expect(simple.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('restricts CORS to configured origins, or sends none when disabled', async () => {
    const listed = await testHarness(backend, { corsOrigin: ['http://ok.test'] });
    expect((await listed.call('GET', '/ojs/v1/queues', undefined, { Origin: 'http://ok.test' })).headers.get('access-control-allow-origin')).toBe(
      'http://ok.test',
    );
    expect((await listed.call('GET', '/ojs/v1/queues', undefined, { Origin: 'http://evil.test' })).headers.get('access-control-allow-origin')).toBeNull();
    const off = await testHarness(backend, { corsOrigin: false });
    expect((await off.call('GET', '/ojs/v1/queues', undefined, { Origin: 'http://ok.test' })).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('404s unknown routes and 405s known paths with the wrong method, with Allow', async () => {
    const q = queueName();
    await push(h, q);
    const missing = await h.json('GET', '/ojs/v1/nothing-here');
    expect(missing.res.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const cases: Array<[string, string, string[]]> = [
      ['PUT', '/ojs/v1/jobs', ['POST']],
      ['GET', '/ojs/v1/jobs/batch', ['POST']],
      ['DELETE', '/ojs/v1/jobs/batch', ['POST']],
      ['POST', '/ojs/v1/jobs/0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f', ['GET', 'DELETE']],
      ['GET', '/ojs/v1/workers/fetch', ['POST']],
      ['DELETE', `/ojs/v1/queues/${q}/stats`, ['GET']],
      ['POST', '/ojs/v1/dead-letter/stats', ['GET']],
      ['PUT', '/ojs/manifest', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      const { res, body } = await h.json(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(body.error.code).toBe('invalid_request');
      const allow = res.headers.get('allow')!.split(', ');
      for (const m of allowed) expect(allow).toContain(m);
      expect(allow).not.toContain(method);
    }
  });
});
