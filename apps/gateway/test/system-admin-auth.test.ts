/** Manifest, health, readiness, metrics, OpenAPI + reference page, admin API, reset, bearer auth, request log. */
import { describe, expect, it } from 'vitest';
import { createGateway, type RequestLogLine } from '../src/index.js';
import { describeEachBackend, MEMORY } from './support/backends.js';
import { openHarness, testHarness, useHarness } from './support/harness.js';
import { claim, deadLetter, push, queueName } from './support/flows.js';

describeEachBackend('system', (backend) => {
  const h = useHarness(backend);

  it('GET /ojs/manifest: both version keys, level, capabilities, endpoints', async () => {
    const { res, body } = await h.json('GET', '/ojs/manifest');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ specversion: '1.0', ojs_version: '1.0', conformance_tier: 'runtime', protocols: ['http'], backend: backend.name });
    expect(body.conformance_level).toBe(4);
    expect(body.endpoints).toEqual({
      base_url: 'http://localhost/ojs/v1',
      manifest: 'http://localhost/ojs/manifest',
      health: 'http://localhost/ojs/v1/health',
    });
  });

  it('health at /ojs/v1/health and /health; 503 when the backend is unhealthy', async () => {
    for (const path of ['/ojs/v1/health', '/health']) {
      const { res, body } = await h.json('GET', path);
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ status: 'ok', version: '1.0', backend: { type: backend.name, status: 'ok' } });
    }
    const broken = createGateway({
      engine: new Proxy(h.engine, {
        get: (target, key, receiver) =>
          key === 'health'
            ? async () => {
                throw new Error('ECONNREFUSED');
              }
            : Reflect.get(target, key, receiver),
      }),
      logger: false,
    });
    const res = await broken.request('/ojs/v1/health');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect((await res.json()) as any).toMatchObject({ status: 'unhealthy', backend: { status: 'unhealthy', error: 'ECONNREFUSED' } });
    expect((await broken.request('/ready')).status).toBe(503);
  });

  it('GET /ready: ready, then not_ready while draining', async () => {
    const r = await testHarness(backend);
    expect((await r.json('GET', '/ready')).body).toEqual({ status: 'ready' });
    r.gateway.drain();
    const { res, body } = await r.json('GET', '/ready');
    expect(res.status).toBe(503);
    expect(body).toEqual({ status: 'not_ready' });
  });

  it('GET /metrics: Prometheus text with job counters by queue/type and queue gauges, no job ids', async () => {
    const q = queueName();
    const job = await push(h, q);
    await claim(h, q);
    await h.json('POST', '/ojs/v1/workers/ack', { job_id: job.id });
    await push(h, q);
    const res = await h.call('GET', '/metrics');
    expect(res.headers.get('content-type')).toBe('text/plain');
    const text = await res.text();
    expect(text).toContain(`ojs_jobs_enqueued_total{queue="${q}",job_type="test.job"} 2`);
    expect(text).toContain(`ojs_jobs_completed_total{queue="${q}",job_type="test.job"} 1`);
    expect(text).toContain(`ojs_queue_depth{queue="${q}"} 1`);
    expect(text).toContain(`ojs_job_duration_seconds_count{queue="${q}",job_type="test.job"} 1`);
    expect(text).toMatch(/ojs_http_requests_total\{method="POST",status="201"\} \d+/);
    expect(text).not.toContain(job.id);
  });

  it('serves the OpenAPI document with every route, and a reference page', async () => {
    const res = await h.call('GET', '/ojs/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'POST /ojs/v1/jobs',
      'POST /ojs/v1/jobs/batch',
      'GET /ojs/v1/jobs/{id}',
      'DELETE /ojs/v1/jobs/{id}',
      'POST /ojs/v1/jobs/{id}/activate',
      'PUT /ojs/v1/jobs/{id}/progress',
      'GET /ojs/v1/jobs/{id}/progress',
      'GET /ojs/v1/jobs/{id}/events',
      'POST /ojs/v1/workers/fetch',
      'POST /ojs/v1/workers/ack',
      'POST /ojs/v1/workers/ack/batch',
      'POST /ojs/v1/workers/nack',
      'POST /ojs/v1/workers/heartbeat',
      'POST /ojs/v1/workers/progress',
      'GET /ojs/v1/queues',
      'GET /ojs/v1/queues/{name}/stats',
      'POST /ojs/v1/queues/{name}/pause',
      'POST /ojs/v1/queues/{name}/resume',
      'GET /ojs/v1/queues/{name}/events',
      'GET /ojs/v1/dead-letter',
      'GET /ojs/v1/dead-letter/stats',
      'POST /ojs/v1/dead-letter/retry',
      'GET /ojs/v1/dead-letter/{id}',
      'POST /ojs/v1/dead-letter/{id}/retry',
      'DELETE /ojs/v1/dead-letter/{id}',
      'POST /ojs/v1/cron',
      'GET /ojs/v1/cron',
      'GET /ojs/v1/cron/{name}',
      'PATCH /ojs/v1/cron/{name}',
      'DELETE /ojs/v1/cron/{name}',
      'POST /ojs/v1/workflows',
      'GET /ojs/v1/workflows/{id}',
      'DELETE /ojs/v1/workflows/{id}',
      'GET /ojs/v1/events',
      'GET /ojs/v1/events/stream',
      'GET /ojs/manifest',
      'GET /ojs/v1/health',
      'GET /health',
      'GET /ready',
      'GET /metrics',
      'GET /ojs/v1/admin/stats',
      'GET /ojs/v1/admin/queues',
      'GET /ojs/v1/admin/dead-letter',
      'GET /ojs/v1/admin/overdue',
      'GET /ojs/v1/jobs/{id}/history',
    ]) {
      expect(operations, expected).toContain(expected);
    }
    expect(doc.paths['/ojs/v1/jobs'].post.requestBody.content['application/openjobspec+json'].schema).toBeDefined();
    expect(doc.components.schemas.Job.properties.state.enum).toContain('active');
    const page = await h.call('GET', '/ojs/v1/docs');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/ojs/v1/openapi.json');
    expect(await (await h.call('GET', '/')).text()).toContain('/ojs/v1/docs');
  });
});

describeEachBackend('admin', (backend) => {
  it('stats, queues, jobs, dead letter (paged, bare envelopes, 204 delete)', async () => {
    const h = await testHarness(backend);
    const q = queueName();
    const job = await push(h, q);
    const dead = await deadLetter(h, queueName());
    const stats = await h.json('GET', '/ojs/v1/admin/stats');
    // The engine always lists `default`, so two queues of ours make three.
    expect(stats.body).toMatchObject({ queues: 3, jobs: { available: 1, discarded: 1 }, throughput: { processed_per_minute: 0, failed_per_minute: 1 } });
    const queues = await h.json('GET', '/ojs/v1/admin/queues?page=1&per_page=1');
    expect(queues.body.items).toHaveLength(1);
    expect(queues.body.pagination).toEqual({ total: 3, page: 1, per_page: 1 });
    expect((await h.json('GET', `/ojs/v1/admin/queues/${q}`)).body).toMatchObject({ name: q, state: 'active', counts: { available: 1 } });
    expect((await h.json('POST', `/ojs/v1/admin/queues/${q}/pause`)).body).toMatchObject({ name: q, paused: true });
    expect((await h.json('POST', `/ojs/v1/admin/queues/${q}/resume`)).body).toMatchObject({ name: q, paused: false });
    expect((await h.json('GET', `/ojs/v1/admin/jobs/${job.id}`)).body).toMatchObject({ id: job.id, state: 'available' });
    expect((await h.json('POST', `/ojs/v1/admin/jobs/${job.id}/cancel`)).body).toMatchObject({ id: job.id, state: 'cancelled' });
    const dlq = await h.json('GET', '/ojs/v1/admin/dead-letter?per_page=500');
    expect(dlq.body.items.map((j: any) => j.id)).toEqual([dead.id]);
    expect(dlq.body.pagination).toEqual({ total: 1, page: 1, per_page: 100 });
    expect((await h.json('GET', '/ojs/v1/admin/dead-letter/stats')).body.total).toBe(1);
    const deleted = await h.call('DELETE', `/ojs/v1/admin/dead-letter/${dead.id}`);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await h.json('POST', '/ojs/v1/admin/dead-letter/retry', { filter: {} })).res.status).toBe(400);
  });

  it('POST /admin/reset is 404 unless enabled; enabled it wipes everything', async () => {
    const off = await testHarness(backend);
    expect((await off.json('POST', '/ojs/v1/admin/reset')).res.status).toBe(404);
    const on = await testHarness(backend, { enableReset: true });
    const q = queueName();
    const job = await push(on, q);
    const { res, body } = await on.json('POST', '/ojs/v1/admin/reset');
    expect(res.status).toBe(200);
    expect(body).toEqual({ reset: true });
    expect((await on.json('GET', `/ojs/v1/jobs/${job.id}`)).res.status).toBe(404);
    expect((await on.json('GET', '/ojs/v1/queues')).body.queues.map((queue: { name: string }) => queue.name)).not.toContain(q);
  });
});

describeEachBackend('auth', (backend) => {
  it('requires the bearer token on /ojs/* except manifest, health and docs', async () => {
    // CORS on, so the preflight below reaches the gateway's CORS answer (auth must not block it).
    const h = await testHarness(backend, { apiKey: ['s3cret', 'other'], corsOrigin: '*' });
    const missing = await h.json('GET', '/ojs/v1/queues');
    expect(missing.res.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthenticated');
    expect(missing.res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await h.json('GET', '/ojs/v1/queues', undefined, { Authorization: 'Bearer wrong' })).res.status).toBe(401);
    expect((await h.json('GET', '/ojs/v1/queues', undefined, { Authorization: 's3cret' })).res.status).toBe(401);
    expect((await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [] })).res.status).toBe(401);
    expect((await h.engine.queueStats('default')).available).toBe(0);
    expect((await h.json('GET', '/ojs/v1/queues', undefined, { Authorization: 'Bearer s3cret' })).res.status).toBe(200);
    expect((await h.json('GET', '/ojs/v1/queues', undefined, { Authorization: 'bearer other' })).res.status).toBe(200);
    for (const path of ['/ojs/manifest', '/ojs/v1/health', '/health', '/ready', '/metrics', '/ojs/v1/openapi.json', '/ojs/v1/docs', '/']) {
      expect((await h.call('GET', path)).status, path).toBe(200);
    }
    const preflight = await h.call('OPTIONS', '/ojs/v1/jobs', undefined, { Origin: 'http://a.test', 'Access-Control-Request-Method': 'POST' });
    expect(preflight.status).toBe(204);
    const doc = (await (await h.call('GET', '/ojs/v1/openapi.json')).json()) as any;
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('refuses an empty key at construction', async () => {
    await expect(openHarness(backend, { apiKey: '' })).rejects.toThrow(/apiKey/);
  });
});

describeEachBackend('request log', (backend) => {
  it('writes one structured line per request', async () => {
    const lines: RequestLogLine[] = [];
    const h = await testHarness(backend, { logger: (line) => lines.push(line) });
    await h.call('GET', '/ojs/v1/queues', undefined, { 'X-Request-Id': 'log-1' });
    await h.call('GET', '/ojs/v1/jobs/nope');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ msg: 'request', level: 'info', method: 'GET', path: '/ojs/v1/queues', status: 200, request_id: 'log-1' });
    expect(lines[0]!.duration_ms).toBeTypeOf('number');
    expect(lines[1]).toMatchObject({ level: 'warn', status: 404 });
  });
});

// Who owns the engine and the driver is the gateway's own logic (the counting wraps a MemoryDriver's close);
// a gateway built on a Redis or Postgres backend is started and closed by the CLI tests.
describe('lifecycle', () => {
  it('a gateway built on a backend owns its engine: close() stops it and closes the driver, once', async () => {
    const { MemoryDriver } = await import('@ojskit/memory');
    const driver = new MemoryDriver();
    let closes = 0;
    const close = driver.close.bind(driver);
    driver.close = async () => {
      closes += 1;
      await close();
    };
    const gateway = createGateway({ backend: driver, logger: false, enableReset: true });
    expect(
      (await gateway.request('/ojs/v1/jobs', { method: 'POST', body: '{"type":"a.b","args":[]}', headers: { 'Content-Type': 'application/json' } })).status,
    ).toBe(201);
    expect((await gateway.request('/ojs/v1/admin/reset', { method: 'POST' })).status).toBe(200);
    await Promise.all([gateway.close(), gateway.close()]);
    expect(closes).toBe(1);
    expect(gateway.isDraining()).toBe(true);
  });

  it('a gateway given an engine leaves it open', async () => {
    const h = await testHarness(MEMORY);
    await h.gateway.close();
    expect((await h.engine.health()).status).toBe('ok');
  });

  it('rejects enableReset without a driver, and a bad body limit', async () => {
    const h = await testHarness(MEMORY);
    expect(() => createGateway({ engine: h.engine, enableReset: true })).toThrow(/driver/);
    expect(() => createGateway({ engine: h.engine, bodyLimit: 0 })).toThrow(/bodyLimit/);
  });
});
