/** The HTTP side of backpressure, bulk and admin routes: status codes, headers, routing, error envelopes, draining health. */
import { describe, expect, it } from 'vitest';
import { describeEachBackend } from './support/backends.js';
import { testHarness, useHarness } from './support/harness.js';
import { claim, push, queueName } from './support/flows.js';

const JOB = (queue: string) => ({ type: 'test.job', args: [], options: { queue } });

describeEachBackend('admin, bulk and backpressure over HTTP', (backend) => {
  const h = useHarness(backend);

  it('PUT/GET /admin/queues/:name/config; over the bound 429 QUEUE_FULL with Retry-After and X-OJS-Queue-* headers', async () => {
    const q = queueName();
    const put = await h.json('PUT', `/ojs/v1/admin/queues/${q}/config`, { backpressure: { max_depth: 2, warning_threshold: 0.5, retry_after_seconds: 9 } });
    expect(put.res.status).toBe(200);
    expect(put.body).toMatchObject({ queue: q, backpressure: { max_depth: 2, strategy: 'reject', warning_threshold: 0.5, retry_after_seconds: 9 } });
    expect((await h.json('GET', `/ojs/v1/admin/queues/${q}/config`)).body).toEqual(put.body);

    const first = await h.call('POST', '/ojs/v1/jobs', JOB(q));
    expect(first.status).toBe(201);
    expect(first.headers.get('x-ojs-queue-pressure')).toBe('0.50');
    expect(first.headers.get('x-ojs-queue-depth')).toBe('1');
    expect(first.headers.get('x-ojs-queue-bound')).toBe('2');
    expect((await h.call('POST', '/ojs/v1/jobs', JOB(q))).headers.get('x-ojs-queue-pressure')).toBe('1.00');

    const full = await h.call('POST', '/ojs/v1/jobs', JOB(q));
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBe('9');
    expect(full.headers.get('x-ojs-queue-depth')).toBe('2');
    expect(full.headers.get('x-ojs-queue-bound')).toBe('2');
    expect(full.headers.get('content-type')).toBe('application/openjobspec+json');
    expect(((await full.json()) as any).error).toMatchObject({ code: 'QUEUE_FULL', retryable: true, details: { queue: q, depth: 2, bound: 2 } });

    const batch = await h.call('POST', '/ojs/v1/jobs/batch', { jobs: [JOB(q)] });
    expect(batch.status).toBe(429);
    expect(batch.headers.get('retry-after')).toBe('9');
  });

  it('bad queue configurations answer the error envelope, never 500', async () => {
    const q = queueName();
    for (const [body, status] of [
      [{ backpressure: { max_depth: 'ten' } }, 400],
      [{ backpressure: { strategy: 'block' } }, 422],
      [[1, 2], 400],
    ] as const) {
      const { res, body: answer } = await h.json('PUT', `/ojs/v1/admin/queues/${q}/config`, body);
      expect(res.status).toBe(status);
      expect(answer.error.code).toBeTypeOf('string');
    }
    expect((await h.json('PUT', '/ojs/v1/admin/queues/Bad%20Name/config', { max_depth: 1 })).res.status).toBe(400);
  });

  it('POST /jobs/bulk: 201 all stored, 207 some failed, 422 x_bulk_failed all failed, 413 over the batch limit', async () => {
    const q = queueName();
    const all = await h.json('POST', '/ojs/v1/jobs/bulk', { jobs: [JOB(q), JOB(q)] });
    expect(all.res.status).toBe(201);
    expect(all.body).toMatchObject({ total: 2, succeeded: 2, failed: 0 });
    const some = await h.json('POST', '/ojs/v1/jobs/bulk', { jobs: [JOB(q), { type: 'Bad Type' }] });
    expect(some.res.status).toBe(207);
    expect(some.body.items[1]).toMatchObject({ index: 1, status: 'failed', error: { code: 'invalid_request' } });
    const none = await h.json('POST', '/ojs/v1/jobs/bulk', { jobs: [{ type: 'Bad Type' }] });
    expect(none.res.status).toBe(422);
    expect(none.body.error).toMatchObject({ code: 'x_bulk_failed', details: { total: 1, failed: 1 } });
    const atomic = await h.json('POST', '/ojs/v1/jobs/bulk', { atomicity: 'atomic', jobs: [JOB(q), { type: 'Bad Type' }] });
    expect(atomic.res.status).toBe(422);
    expect(atomic.body.error.details).toMatchObject({ index: 1, atomicity: 'atomic' });
    const tooMany = await h.json('POST', '/ojs/v1/jobs/bulk', { jobs: Array.from({ length: 10_001 }, () => JOB(q)) });
    expect(tooMany.res.status).toBe(413);
  });

  it('POST /jobs/bulk/cancel: 200 when nothing failed, 207 otherwise; GET on a bulk path is 405, not a job lookup', async () => {
    const q = queueName();
    const job = await push(h, q);
    const ok = await h.json('POST', '/ojs/v1/jobs/bulk/cancel', { job_ids: [job.id] });
    expect(ok.res.status).toBe(200);
    expect(ok.body.items).toEqual([{ index: 0, job_id: job.id, status: 'cancelled' }]);
    const mixed = await h.json('POST', '/ojs/v1/jobs/bulk/delete', { job_ids: [job.id, '01970000-0000-7000-8000-000000000000'] });
    expect(mixed.res.status).toBe(207);
    expect(mixed.body.items.map((i: any) => i.status)).toEqual(['deleted', 'failed']);
    expect((await h.call('GET', '/ojs/v1/jobs/bulk')).status).toBe(405);
  });

  it('admin: bulk routes are not taken for job ids; retry answers the bare job; workers quiet/terminate; stats count workers', async () => {
    const q = queueName();
    const job = await push(h, q, { options: { queue: q, retry: { max_attempts: 1 } } });
    await claim(h, q);
    await h.json('POST', '/ojs/v1/workers/nack', { job_id: job.id, error: { code: 'x', message: 'x' } });
    const noConfirm = await h.json('POST', '/ojs/v1/admin/jobs/bulk/retry', { filter: { queue: q } });
    expect(noConfirm.res.status).toBe(400);
    expect(noConfirm.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'confirm' } });
    const bulk = await h.json('POST', '/ojs/v1/admin/jobs/bulk/retry', { filter: { queue: q }, confirm: true });
    expect(bulk.body).toEqual({ action: 'retry', matched: 1, succeeded: 1, failed: 0 });
    const retried = await h.json('POST', `/ojs/v1/admin/jobs/${job.id}/retry`);
    expect(retried.res.status).toBe(409);

    await h.json('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'gw-admin-w1', hostname: 'h1' });
    const quiet = await h.json('POST', '/ojs/v1/admin/workers/gw-admin-w1/quiet');
    expect(quiet.body).toEqual({ worker_id: 'gw-admin-w1', state: 'quiet', directive: 'quiet' });
    expect((await h.json('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'gw-admin-w1' })).body).toMatchObject({ state: 'quiet' });
    expect((await h.json('POST', '/ojs/v1/admin/workers/gw-admin-w1/terminate')).body).toMatchObject({ state: 'terminate' });
    const workers = await h.json('GET', '/ojs/v1/admin/workers?per_page=100');
    expect(workers.body.items.find((w: any) => w.id === 'gw-admin-w1')).toMatchObject({ state: 'running', directive: 'terminate', stale: false });
    const stats = await h.json('GET', '/ojs/v1/admin/stats');
    expect(stats.body).toMatchObject({ workers: expect.any(Number), worker_summary: { total: expect.any(Number) }, throughput: expect.any(Object) });
    expect(stats.body.workers).toBeGreaterThanOrEqual(1);
    const jobs = await h.json('GET', `/ojs/v1/admin/jobs?queue=${q}&state=available&per_page=5`);
    expect(jobs.body).toEqual({ items: [expect.objectContaining({ id: job.id })], pagination: { total: 1, page: 1, per_page: 5 } });
    expect((await h.json('GET', '/ojs/v1/admin/jobs?state=nope')).res.status).toBe(400);
    expect((await h.json('GET', '/ojs/v1/admin/jobs?order=asc')).res.status).toBe(400);
  });
});

describe('health while draining', () => {
  it('a draining gateway answers health 503 degraded with draining: true', async () => {
    const r = await testHarness((await import('./support/backends.js')).MEMORY);
    expect((await r.json('GET', '/ojs/v1/health')).res.status).toBe(200);
    r.gateway.drain();
    const { res, body } = await r.json('GET', '/ojs/v1/health');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(body).toMatchObject({ status: 'degraded', draining: true, backend: { status: 'ok' } });
  });
});
