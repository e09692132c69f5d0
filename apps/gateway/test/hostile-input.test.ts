/**
 * Hostile values inside well-formed JSON (issue 25, items 1, 3, 4, 5, 7, 10): deep nesting, extreme times,
 * NUL characters and lone surrogates, huge invalid values, oversized envelopes. Each backend refuses them the
 * same way, with a 400/413 OJS envelope, and stores nothing; the healthy jobs around them are untouched.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ENVELOPE_BYTES, MAX_JSON_DEPTH, parseEnqueue } from '@ojskit/core/schemas';
import { describeEachBackend, MEMORY } from './support/backends.js';
import { useHarness } from './support/harness.js';
import { claim, deadLetter, push, queueName } from './support/flows.js';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describeEachBackend('hostile values', (backend) => {
  const h = useHarness(backend);

  /** Asserts a 4xx OJS envelope and returns its error object. */
  async function refused(method: string, path: string, body: unknown, status = 400): Promise<any> {
    const { res, body: out } = await h.json(method, path, body);
    expect(res.status, JSON.stringify(out).slice(0, 300)).toBe(status);
    expect(typeof out.error.code).toBe('string');
    expect(out.error.message.length).toBeGreaterThan(0);
    return out.error;
  }

  async function jobCount(queue: string): Promise<number> {
    const { body } = await h.json('GET', `/ojs/v1/queues/${queue}/stats`);
    const { available, active, scheduled, retryable, pending, completed, discarded, cancelled } = body.stats;
    return available + active + scheduled + retryable + pending + completed + discarded + cancelled;
  }

  it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is 400 naming the field; at the limit it is stored and fetched`, async () => {
    const q = queueName('deep');
    for (const depth of [MAX_JSON_DEPTH + 1, 3_000, 5_000]) {
      const text = `{"type":"a.b","args":${nested(depth)},"queue":"${q}"}`;
      const error = await refused('POST', '/ojs/v1/jobs', text);
      expect(error.code).toBe('invalid_request');
      expect(error.details.field).toBe('args');
      expect(error.details.validation).toBe('depth');
    }
    const metaDeep = await refused('POST', '/ojs/v1/jobs', `{"type":"a.b","args":[],"meta":{"x":${nested(3_000)}},"queue":"${q}"}`);
    expect(metaDeep.details.field).toBe('meta');
    expect(await jobCount(q)).toBe(0);
    // The deepest accepted value: the body is one level, args counts from there.
    const ok = await push(h, q, { args: JSON.parse(nested(MAX_JSON_DEPTH - 1)) });
    for (let i = 0; i < 5; i++) await push(h, q);
    const { res, body } = await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 10, worker_id: 'w' });
    expect(res.status).toBe(200);
    expect(body.jobs.map((j: any) => j.id)).toContain(ok.id);
    expect(body.jobs).toHaveLength(6);
  });

  it('deep JSON in worker bodies (ACK result, FAIL error, progress data, heartbeat labels) is 400, the job unchanged', async () => {
    const q = queueName('deepw');
    const job = await push(h, q);
    await claim(h, q);
    const deep = JSON.parse(nested(3_000));
    expect((await refused('POST', '/ojs/v1/workers/ack', { job_id: job.id, result: deep })).details.field).toBe('result');
    expect((await refused('POST', '/ojs/v1/workers/nack', { job_id: job.id, error: { message: 'x', details: { d: deep } } })).details.field).toBe('error');
    await refused('PUT', `/ojs/v1/jobs/${job.id}/progress`, { data: { d: deep } });
    await refused('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w', labels: { d: deep } });
    await refused('POST', '/ojs/v1/workers/ack/batch', { acks: [{ job_id: job.id, result: deep }] });
    const { body } = await h.json('GET', `/ojs/v1/jobs/${job.id}`);
    expect(body.job.state).toBe('active');
  });

  it('scheduled_at, expires_at and delay_until outside RFC 3339 years (0000-9999) are 400, never 500', async () => {
    const q = queueName('time');
    for (const field of ['scheduled_at', 'expires_at', 'delay_until']) {
      for (const value of ['+P300000Y', '+P200000Y', '+P8000Y', '+PT99999999999999999999S']) {
        const error = await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], queue: q, [field]: value });
        expect(error.code).toBe('invalid_request');
        expect(error.details.field).toBe(field);
      }
    }
    const far = await push(h, q, { scheduled_at: '+P7000Y' });
    expect(far.scheduled_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await jobCount(q)).toBe(1);
  });

  it('a lone surrogate or a NUL character anywhere in a body is 400 on every route, and nothing is stored', async () => {
    const q = queueName('str');
    const job = await push(h, q);
    await claim(h, q);
    for (const bad of ['\ud800', 'a\udc00b', '\u0000', 'x\u0000y']) {
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [bad], queue: q }, 'args'],
        ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], tags: [bad], queue: q }, 'tags'],
        ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], custom_field: bad, queue: q }, 'custom_field'],
        ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], meta: { [bad]: 1 }, queue: q }, 'meta'],
        ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], retry: { non_retryable_errors: [bad] }, queue: q }, 'retry'],
        [
          'POST',
          '/ojs/v1/jobs/batch',
          {
            jobs: [
              { type: 'a.b', args: [], queue: q },
              { type: 'a.b', args: [bad], queue: q },
            ],
          },
          'args',
        ],
        ['POST', '/ojs/v1/workers/fetch', { queues: [q], worker_id: bad }, 'worker_id'],
        ['POST', '/ojs/v1/workers/ack', { job_id: job.id, worker_id: bad }, 'worker_id'],
        ['POST', '/ojs/v1/workers/ack/batch', { acks: [{ job_id: job.id, worker_id: bad }] }, 'worker_id'],
        ['POST', '/ojs/v1/workers/nack', { job_id: job.id, error: { message: bad } }, 'error'],
        ['POST', '/ojs/v1/workers/heartbeat', { worker_id: bad }, 'worker_id'],
        ['POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w', active_job_ids: [bad] }, 'active_job_ids'],
        ['PUT', `/ojs/v1/jobs/${job.id}/progress`, { message: bad }, 'message'],
      ];
      for (const [method, path, body, field] of cases) {
        const error = await refused(method, path, body);
        expect(error.code, `${path} ${JSON.stringify(body)}`).toBe('invalid_request');
        expect(error.details.field).toBe(field);
        expect(error.details.validation).toBe('string');
      }
    }
    const { body } = await h.json('GET', `/ojs/v1/jobs/${job.id}`);
    expect(body.job.state).toBe('active');
    expect(await jobCount(q)).toBe(1);
  });

  it('other non-ASCII text (astral characters, pairs, RTL, zero-width) is stored and read back exactly', async () => {
    const q = queueName('utf');
    const text = '😀 \ud83d\ude00 עברית \u200b\u200d e\u0301 \uffff';
    const job = await push(h, q, { args: [text], tags: [text], meta: { [text]: text } });
    const { body } = await h.json('GET', `/ojs/v1/jobs/${job.id}`);
    expect(body.job.args).toEqual([text]);
    expect(body.job.tags).toEqual([text]);
    expect(body.job.meta).toEqual({ [text]: text });
  });

  it('an error never echoes a huge invalid value: the response stays small', async () => {
    const huge = 'x'.repeat(2_000_000);
    for (const [path, body] of [
      ['/ojs/v1/cron', { name: 'c1', expression: '* * * * *', timezone: huge, type: 'a.b' }],
      ['/ojs/v1/cron', { name: 'c1', expression: huge, type: 'a.b' }],
      ['/ojs/v1/jobs', { type: huge, args: [] }],
      ['/ojs/v1/jobs', { type: 'a.b', args: [], queue: huge }],
      ['/ojs/v1/jobs', { type: 'a.b', args: [], scheduled_at: huge }],
      ['/ojs/v1/jobs', { type: 'a.b', args: [], retry: { backoff_strategy: huge } }],
      ['/ojs/v1/workers/fetch', { queues: [huge] }],
    ] as Array<[string, unknown]>) {
      const res = await h.call('POST', path, body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect((await res.text()).length, path).toBeLessThan(4_096);
    }
  });

  it('the retry-policy error names the field properly when retry is not an object', async () => {
    for (const retry of ['often', 5, [1], true]) {
      const error = await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], retry }, 422);
      expect(error.code).toBe('validation_error');
      expect(error.details.field).toBe('retry');
      expect(error.message).toBe('Invalid retry policy: retry must be an object.');
    }
    const error = await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { retry_policy: 'x' } }, 422);
    expect(error.details.field).toBe('options.retry_policy');
  });

  it(`an envelope over ${MAX_ENVELOPE_BYTES} bytes is 413 payload_too_large, alone or in a batch, and nothing is stored`, async () => {
    const q = queueName('big');
    const big = 'x'.repeat(MAX_ENVELOPE_BYTES);
    const error = await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: [big], queue: q }, 413);
    expect(error.code).toBe('payload_too_large');
    expect(error.details.limit_bytes).toBe(MAX_ENVELOPE_BYTES);
    // Many small values add up too (no single string is large).
    await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: new Array(600_000).fill(1), queue: q }, 413);
    // Multi-byte text counts in UTF-8 bytes.
    await refused('POST', '/ojs/v1/jobs', { type: 'a.b', args: ['é'.repeat(MAX_ENVELOPE_BYTES / 2 + 10)], queue: q }, 413);
    const batch = await refused(
      'POST',
      '/ojs/v1/jobs/batch',
      {
        jobs: [
          { type: 'a.b', args: [], queue: q },
          { type: 'a.b', args: [big], queue: q },
        ],
      },
      413,
    );
    expect(batch.details.index).toBe(1);
    expect(await jobCount(q)).toBe(0);
    // Just under the limit is stored.
    await push(h, q, { args: ['x'.repeat(MAX_ENVELOPE_BYTES - 1_000)] });
    expect(await jobCount(q)).toBe(1);
  });

  it('dead-letter retry refuses an `override` (not supported) with 422 unsupported and leaves the job in the DLQ', async () => {
    const q = queueName('dlq');
    const dead = await deadLetter(h, q);
    for (const override of [{ queue: 'elsewhere' }, { meta: { a: 1 } }, {}, 'x']) {
      const error = await refused('POST', `/ojs/v1/dead-letter/${dead.id}/retry`, { override }, 422);
      expect(error.code).toBe('unsupported');
      expect(error.details.field).toBe('override');
    }
    expect((await h.json('GET', `/ojs/v1/dead-letter/${dead.id}`)).res.status).toBe(200);
    const { res, body } = await h.json('POST', `/ojs/v1/dead-letter/${dead.id}/retry`, {});
    expect(res.status).toBe(200);
    expect(body.job.state).toBe('available');
  });

  it('the OpenAPI document does not advertise a dead-letter retry override', async () => {
    const { body } = await h.json('GET', '/ojs/v1/openapi.json');
    expect(JSON.stringify(body)).not.toContain('override');
  });
});

// Memory only: a job the gateway cannot serialise can be stored only by a driver-level caller, and only the
// memory driver keeps a value (a BigInt) that JSON cannot carry; Redis and PostgreSQL encode at insert.
describeEachBackend(
  'a job that cannot be served',
  (backend) => {
    const h = useHarness(backend);

    it('never fails, loses or discards the other jobs of a batch FETCH; it is discarded itself with a clear error', async () => {
      const q = queueName('poison');
      const healthy = [];
      for (let i = 0; i < 5; i++) healthy.push(await push(h, q));
      const parsed = parseEnqueue({ type: 'poison.job', args: [], queue: q }, h.clock.now());
      parsed.job.args = [10n];
      const inserted = await h.driver.jobInsert({
        jobs: [{ job: parsed.job, x: { visibilityMs: 60_000, timeoutMs: 60_000 } }],
        now: h.clock.now(),
        nowIso: new Date(h.clock.now()).toISOString(),
      });
      expect(inserted.ok).toBe(true);
      for (let round = 0; round < 3; round++) {
        const { res, body } = await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 10, worker_id: 'w' });
        expect(res.status, JSON.stringify(body)).toBe(200);
        if (round === 0) {
          expect(body.jobs.map((j: any) => j.id).sort()).toEqual(healthy.map((j) => j.id).sort());
          expect(body.job.id).toBe(body.jobs[0].id);
        } else expect(body.jobs).toEqual([]);
      }
      for (const job of healthy) expect((await h.json('POST', '/ojs/v1/workers/ack', { job_id: job.id, worker_id: 'w' })).res.status).toBe(200);
      const poisoned = (await h.engine.getJob(parsed.job.id)).job;
      expect(poisoned.state).toBe('discarded');
      expect(poisoned.error?.code).toBe('unserializable');
    });
  },
  [MEMORY],
);

describe('MAX_JSON_DEPTH', () => {
  it('is documented in spec/http.md and the gateway README', async () => {
    const { readFile } = await import('node:fs/promises');
    for (const file of ['../../../spec/http.md', '../README.md']) {
      const text = await readFile(new URL(file, import.meta.url), 'utf8');
      expect(text, file).toContain(`${MAX_JSON_DEPTH} levels`);
    }
  });
});
