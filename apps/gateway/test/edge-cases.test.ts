/**
 * Edge behaviour: malformed JSON, wrong content types, oversized bodies, unknown fields, invalid ids, illegal
 * transitions, unknown jobs. Each answers a clear OJS error with the right code and status, never a 500, and
 * never changes or loses a job.
 */
import { describe, expect, it } from 'vitest';
import { OjsError } from '@ojskit/core';
import { createGateway } from '../src/index.js';
import { describeEachBackend, MEMORY } from './support/backends.js';
import { OJS, testHarness, useHarness } from './support/harness.js';
import { claim, push, queueName, stored } from './support/flows.js';

const UNKNOWN_ID = '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f';

/** Every POST/PUT/PATCH route with a JSON body, with a path to call it on. */
const BODY_ROUTES: Array<[string, string]> = [
  ['POST', '/ojs/v1/jobs'],
  ['POST', '/ojs/v1/jobs/batch'],
  ['PUT', `/ojs/v1/jobs/${UNKNOWN_ID}/progress`],
  ['POST', '/ojs/v1/workers/fetch'],
  ['POST', '/ojs/v1/workers/ack'],
  ['POST', '/ojs/v1/workers/ack/batch'],
  ['POST', '/ojs/v1/workers/nack'],
  ['POST', '/ojs/v1/workers/heartbeat'],
  ['POST', '/ojs/v1/workers/progress'],
  ['POST', '/ojs/v1/dead-letter/retry'],
  ['POST', '/ojs/v1/cron'],
  ['PATCH', '/ojs/v1/cron/some-cron'],
  ['POST', '/ojs/v1/workflows'],
  ['POST', '/ojs/v1/admin/dead-letter/retry'],
];

describeEachBackend('malformed bodies', (backend) => {
  const h = useHarness(backend);

  it.each(BODY_ROUTES)('%s %s: unparseable JSON is 400 invalid_payload', async (method, path) => {
    for (const text of ['{', '{"type":', 'nope', '{"a":1,}', "{'a':1}"]) {
      const { res, body } = await h.json(method, path, text);
      expect(res.status, text).toBe(400);
      expect(body.error.code).toBe('invalid_payload');
      expect(body.error.retryable).toBe(false);
    }
  });

  it.each(BODY_ROUTES)('%s %s: a JSON value that is not an object is 400 invalid_request', async (method, path) => {
    for (const text of ['[]', '[{"type":"a.b","args":[]}]', '42', '"text"', 'null', 'true']) {
      const { res, body } = await h.json(method, path, text);
      expect(res.status, text).toBe(400);
      expect(body.error.code).toBe('invalid_request');
    }
  });

  it.each(BODY_ROUTES)('%s %s: an empty body is 400 invalid_request (the body is required)', async (method, path) => {
    const { res, body } = await h.json(method, path, '');
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
  });

  it('a wrong content type is 415 (code invalid_request); JSON types with parameters are accepted', async () => {
    const payload = JSON.stringify({ type: 'ct.job', args: [] });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const { res, body } = await h.json('POST', '/ojs/v1/jobs', payload, { 'Content-Type': type });
      expect(res.status, type).toBe(415);
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details.field).toBe('Content-Type');
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', OJS, `${OJS}; charset=UTF-8`, 'Application/JSON']) {
      const { res } = await h.json('POST', '/ojs/v1/jobs', payload, { 'Content-Type': type });
      expect(res.status, type).toBe(201);
    }
  });

  it('routes whose body is optional read an empty body as {}', async () => {
    const q = queueName();
    expect((await h.call('POST', `/ojs/v1/queues/${q}/pause`, '', { 'Content-Type': 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect((await h.call('POST', `/ojs/v1/queues/${q}/resume`)).status).toBe(200);
  });

  it('garbage thrown at every route never yields a 5xx', async () => {
    const garbage = [
      '{',
      '[]',
      '{"jobs":"x"}',
      '{"queues":[1,2]}',
      '{"job_id":{"$ne":null}}',
      '{"type":"", "args":{}}',
      `{"args":${'['.repeat(500)}${']'.repeat(500)}}`,
      '\u0000',
      '{"__proto__":{"x":1}}',
    ];
    const paths = [...BODY_ROUTES, ['POST', `/ojs/v1/jobs/${UNKNOWN_ID}/activate`], ['POST', `/ojs/v1/dead-letter/${UNKNOWN_ID}/retry`]] as Array<
      [string, string]
    >;
    for (const [method, path] of paths) {
      for (const text of garbage) {
        const res = await h.call(method, path, text);
        expect(res.status, `${method} ${path} ${text.slice(0, 30)}`).toBeLessThan(500);
        expect(res.headers.get('content-type')).toBe(OJS);
      }
    }
  });
});

describeEachBackend('body size limit', (backend) => {
  it('rejects bodies over the configured limit with 413 payload_too_large, storing nothing', async () => {
    const h = await testHarness(backend, { bodyLimit: 1024 });
    const q = queueName();
    const big = { type: 'big.job', args: ['x'.repeat(2048)], options: { queue: q } };
    const { res, body } = await h.json('POST', '/ojs/v1/jobs', big);
    expect(res.status).toBe(413);
    expect(body.error.code).toBe('payload_too_large');
    expect(res.headers.get('content-type')).toBe(OJS);
    expect((await h.engine.queueStats(q)).available).toBe(0);
    const small = await h.json('POST', '/ojs/v1/jobs', { type: 'big.job', args: ['x'], options: { queue: q } });
    expect(small.res.status).toBe(201);
  });

  it('also limits chunked bodies without Content-Length', async () => {
    const h = await testHarness(backend, { bodyLimit: 1024 });
    const chunks = [new TextEncoder().encode('{"type":"a.b","args":["'), new TextEncoder().encode('y'.repeat(4096)), new TextEncoder().encode('"]}')];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await h.gateway.request('/ojs/v1/jobs', { method: 'POST', body: stream, headers: { 'Content-Type': OJS }, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('accepts a 1 000-job batch and a 1 MiB envelope under the default limit', async () => {
    const h = await testHarness(backend);
    const q = queueName();
    const jobs = Array.from({ length: 1000 }, (_, i) => ({ type: 'batch.job', args: [i], options: { queue: q } }));
    const batch = await h.json('POST', '/ojs/v1/jobs/batch', { jobs });
    expect(batch.res.status).toBe(201);
    expect(batch.body.count).toBe(1000);
    const envelope = await h.json('POST', '/ojs/v1/jobs', { type: 'big.job', args: ['z'.repeat(1_000_000)], options: { queue: q } });
    expect(envelope.res.status).toBe(201);
  });
});

describeEachBackend('envelope preservation over HTTP', (backend) => {
  const h = useHarness(backend);

  it('keeps unknown fields and args/meta exactly (everything JSON carries) through PUSH, INFO and FETCH', async () => {
    const q = queueName();
    const args = [1, 2.5, 'two', null, true, { nested: [1, { deep: 'x' }] }, '9007199254740993', 1e300, 'ünïcødé ✓ 🚀', []];
    const meta = { trace_id: 'abc', tenant: { id: 7 }, 'dotted.key': true, empty: {} };
    const { res, body } = await h.json('POST', '/ojs/v1/jobs', {
      type: 'keep.job',
      args,
      meta,
      x_custom: { a: [1] },
      partner_field: 'kept',
      options: { queue: q },
    });
    expect(res.status).toBe(201);
    for (const job of [body.job, (await h.json('GET', `/ojs/v1/jobs/${body.job.id}`)).body.job, await claim(h, q)]) {
      expect(job.args).toEqual(args);
      expect(job.meta).toEqual(meta);
      expect(job.x_custom).toEqual({ a: [1] });
      expect(job.partner_field).toBe('kept');
    }
  });

  it('ignores system-managed fields a client sends', async () => {
    const { body } = await h.json('POST', '/ojs/v1/jobs', { type: 'keep.job', args: [], state: 'completed', attempt: 9, result: 'forged', worker_id: 'evil' });
    expect(body.job.state).toBe('available');
    expect(body.job.attempt).toBe(0);
    expect(body.job.result).toBeUndefined();
    expect(body.job.worker_id).toBeUndefined();
  });
});

describeEachBackend('ids, unknown jobs and illegal transitions', (backend) => {
  const h = useHarness(backend);

  it('a malformed id names nothing: 404 not_found on every id route', async () => {
    for (const id of ['abc', 'ABCDEF01-6a2b-7c3d-8e4f-5a6b7c8d9e0f', '0190c8a4-6a2b-4c3d-8e4f-5a6b7c8d9e0f', '%20', "1'%20OR%201=1", 'a%2Fb']) {
      for (const [method, path] of [
        ['GET', `/ojs/v1/jobs/${id}`],
        ['DELETE', `/ojs/v1/jobs/${id}`],
        ['POST', `/ojs/v1/jobs/${id}/activate`],
        ['GET', `/ojs/v1/jobs/${id}/progress`],
        ['GET', `/ojs/v1/dead-letter/${id}`],
        ['DELETE', `/ojs/v1/dead-letter/${id}`],
        ['GET', `/ojs/v1/workflows/${id}`],
        ['DELETE', `/ojs/v1/workflows/${id}`],
      ]) {
        const { res, body } = await h.json(method!, path!);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(body.error.code).toBe('not_found');
      }
    }
  });

  it('unknown (well-formed) ids are 404 on INFO, CANCEL, ACTIVATE, ACK, FAIL and progress', async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/ojs/v1/jobs/${UNKNOWN_ID}`],
      ['DELETE', `/ojs/v1/jobs/${UNKNOWN_ID}`],
      ['POST', `/ojs/v1/jobs/${UNKNOWN_ID}/activate`],
      ['PUT', `/ojs/v1/jobs/${UNKNOWN_ID}/progress`, { progress: 0.5 }],
      ['POST', '/ojs/v1/workers/ack', { job_id: UNKNOWN_ID }],
      ['POST', '/ojs/v1/workers/nack', { job_id: UNKNOWN_ID, error: { message: 'x' } }],
      ['POST', '/ojs/v1/workers/progress', { job_id: UNKNOWN_ID, percentage: 10 }],
    ];
    for (const [method, path, body] of calls) {
      const result = await h.json(method, path, body);
      expect(result.res.status, `${method} ${path}`).toBe(404);
      expect(result.body.error.code).toBe('not_found');
      expect(result.body.error.details).toMatchObject({ resource_type: 'job' });
    }
  });

  it('illegal transitions are 409 conflict and leave the job exactly as it was', async () => {
    const q = queueName();
    const available = await push(h, q);
    const before = await stored(h, available.id);
    for (const [method, path, body] of [
      ['POST', '/ojs/v1/workers/ack', { job_id: available.id }],
      ['POST', '/ojs/v1/workers/nack', { job_id: available.id, error: { message: 'x' } }],
      ['POST', `/ojs/v1/jobs/${available.id}/activate`],
    ] as Array<[string, string, unknown?]>) {
      const result = await h.json(method, path, body);
      expect(result.res.status, `${method} ${path}`).toBe(409);
      expect(result.body.error.code).toBe('conflict');
      expect(result.body.error.details).toMatchObject({ job_id: available.id, current_state: 'available' });
    }
    expect(await stored(h, available.id)).toEqual(before);

    const active = await claim(h, q);
    await h.json('POST', '/ojs/v1/workers/ack', { job_id: active.id, worker_id: 'w1', result: { ok: true } });
    const completed = await stored(h, active.id);
    for (const [method, path, body] of [
      ['DELETE', `/ojs/v1/jobs/${active.id}`],
      ['POST', '/ojs/v1/workers/ack', { job_id: active.id }],
      ['POST', '/ojs/v1/workers/nack', { job_id: active.id, requeue: true }],
    ] as Array<[string, string, unknown?]>) {
      const result = await h.json(method, path, body);
      expect(result.res.status, `${method} ${path}`).toBe(409);
      expect(result.body.error.code).toBe('conflict');
    }
    expect(await stored(h, active.id)).toEqual(completed);
  });

  it('field validation errors come from the engine: 400 invalid_request naming the field; 422 for retry policies', async () => {
    const missingType = await h.json('POST', '/ojs/v1/jobs', { args: [] });
    expect(missingType.res.status).toBe(400);
    expect(missingType.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'type' } });
    const badRetry = await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { retry: { max_attempts: -1 } } });
    expect(badRetry.res.status).toBe(422);
    expect(badRetry.body.error).toMatchObject({ code: 'validation_error', type: 'validation_error' });
    const noQueues = await h.json('POST', '/ojs/v1/workers/fetch', {});
    expect(noQueues.res.status).toBe(400);
    const badBatch = await h.json('POST', '/ojs/v1/jobs/batch', {
      jobs: [
        { type: 'a.b', args: [] },
        { type: 'BAD', args: [] },
      ],
    });
    expect(badBatch.res.status).toBe(400);
    expect(badBatch.body.error.details.index).toBe(1);
    const existing = await push(h, queueName());
    const duplicate = await h.json('POST', '/ojs/v1/jobs', { id: existing.id, type: 'a.b', args: [] });
    expect(duplicate.res.status).toBe(409);
    expect(duplicate.body.error.code).toBe('duplicate');
  });
});

// The failures are injected into the engine, so no store is reached: this runs once, on memory.
describe('backend failures', () => {
  it('an unexpected error is a 500 backend_error envelope (retryable), never a bare 500', async () => {
    const h = await testHarness(MEMORY);
    const failing = new Proxy(h.engine, {
      get(target, key, receiver) {
        if (key === 'getJob' || key === 'fetch')
          return async () => {
            throw new Error('connection reset by peer at 10.0.0.7');
          };
        if (key === 'enqueue')
          return async () => {
            throw new OjsError('backend_unavailable', 'store down');
          };
        return Reflect.get(target, key, receiver);
      },
    });
    const logged: unknown[] = [];
    const gateway = createGateway({ engine: failing, logger: (line) => logged.push(line) });
    const res = await gateway.request(`/ojs/v1/jobs/${UNKNOWN_ID}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe(OJS);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 'backend_error', retryable: true });
    expect(body.error.message).not.toContain('10.0.0.7');
    expect(logged).toContainEqual(expect.objectContaining({ status: 500, level: 'error', error: 'connection reset by peer at 10.0.0.7' }));
    const unavailable = await gateway.request('/ojs/v1/jobs', { method: 'POST', body: '{}', headers: { 'Content-Type': OJS } });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('1');
    expect(((await unavailable.json()) as any).error.code).toBe('backend_unavailable');
  });
});
