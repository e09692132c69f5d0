/** The job envelope on PUSH: defaults, validation order and codes, preservation rules, both request forms. */
import { expect } from 'vitest';
import { newId } from '@ojskit/core/formats';
import { retryPolicyToWire, DEFAULT_RETRY_POLICY } from '@ojskit/core/schemas';
import { TEST_JOB_TYPE } from '../context.js';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';
import { expectServerTimestamp, expectUuidV7 } from '../support/formats.js';

/** Requests that each break exactly one field rule, with the field the error must name. */
const INVALID_FIELDS: Array<[string, Record<string, unknown>, string]> = [
  ['type missing', { args: [] }, 'type'],
  ['type empty', { type: '', args: [] }, 'type'],
  ['type with uppercase', { type: 'Email.Send', args: [] }, 'type'],
  ['type too long', { type: `a${'b'.repeat(255)}`, args: [] }, 'type'],
  ['args missing', { type: TEST_JOB_TYPE }, 'args'],
  ['args null', { type: TEST_JOB_TYPE, args: null }, 'args'],
  ['args an object', { type: TEST_JOB_TYPE, args: { a: 1 } }, 'args'],
  ['args a string', { type: TEST_JOB_TYPE, args: 'x' }, 'args'],
  ['id empty', { type: TEST_JOB_TYPE, args: [], id: '' }, 'id'],
  ['id a v4 uuid', { type: TEST_JOB_TYPE, args: [], id: '0d3c9a52-1f7e-4c7a-9c1e-3f5b2d6a7e81' }, 'id'],
  ['id uppercase', { type: TEST_JOB_TYPE, args: [], id: newId().toUpperCase() }, 'id'],
  ['queue with uppercase', { type: TEST_JOB_TYPE, args: [], options: { queue: 'Bad' } }, 'queue'],
  ['queue too long', { type: TEST_JOB_TYPE, args: [], options: { queue: 'q'.repeat(129) } }, 'queue'],
  ['priority above 100', { type: TEST_JOB_TYPE, args: [], options: { priority: 101 } }, 'priority'],
  ['priority not an integer', { type: TEST_JOB_TYPE, args: [], options: { priority: 1.5 } }, 'priority'],
  ['meta an array', { type: TEST_JOB_TYPE, args: [], meta: [1] }, 'meta'],
  ['scheduled_at without offset', { type: TEST_JOB_TYPE, args: [], options: { scheduled_at: '2030-01-01T00:00:00' } }, 'scheduled_at'],
  ['expires_at not a timestamp', { type: TEST_JOB_TYPE, args: [], options: { expires_at: 'tomorrow' } }, 'expires_at'],
  ['timeout_ms negative', { type: TEST_JOB_TYPE, args: [], options: { timeout_ms: -1 } }, 'timeout_ms'],
  ['visibility_timeout_ms zero', { type: TEST_JOB_TYPE, args: [], options: { visibility_timeout_ms: 0 } }, 'visibility_timeout_ms'],
  ['tags not strings', { type: TEST_JOB_TYPE, args: [], options: { tags: [1] } }, 'tags'],
  ['unique with an unknown dimension', { type: TEST_JOB_TYPE, args: [], options: { unique: { keys: ['color'] } } }, 'unique'],
  ['unique with an unknown state', { type: TEST_JOB_TYPE, args: [], options: { unique: { states: ['waiting'] } } }, 'unique'],
];

/** Retry policies the protocol rejects with 422 validation_error. */
const INVALID_RETRY: Array<[string, Record<string, unknown>]> = [
  ['max_attempts negative', { max_attempts: -1 }],
  ['initial_interval malformed', { initial_interval: 'soon' }],
  ['backoff_coefficient below 1', { backoff_coefficient: 0.5 }],
  ['max_interval below initial_interval', { initial_interval: 'PT10S', max_interval: 'PT1S' }],
  ['on_exhaustion unknown', { on_exhaustion: 'explode' }],
  ['jitter not a boolean', { jitter: 'yes' }],
];

export function registerEnvelopeCases(suite: Suite): void {
  suite.group('envelope', () => {
    suite.test('envelope.defaults', 'a minimal request gets the protocol defaults', async (t) => {
      const { job } = await t.api.enqueue({ type: TEST_JOB_TYPE, args: [] });
      expectUuidV7(job.id);
      expect(job).toMatchObject({
        specversion: '1.0',
        type: TEST_JOB_TYPE,
        queue: 'default',
        args: [],
        meta: {},
        priority: 0,
        state: 'available',
        attempt: 0,
        max_attempts: 3,
        created_at: t.iso(),
        enqueued_at: t.iso(),
      });
      for (const absent of [
        'started_at',
        'completed_at',
        'discarded_at',
        'cancelled_at',
        'result',
        'error',
        'errors',
        'worker_id',
        'retry_delay_ms',
        'next_attempt_at',
        'scheduled_at',
        'expires_at',
        'timeout',
      ]) {
        expect(job, `'${absent}' must be absent, not a placeholder`).not.toHaveProperty(absent);
      }
      expectServerTimestamp(job.created_at, 'created_at');
      await t.api.cancelJob(job.id);
    });

    suite.test('envelope.client-id', 'a client-chosen UUIDv7 is kept', async (t) => {
      const id = newId();
      const job = await t.push(t.queue(), { id });
      expect(job.id).toBe(id);
      expect((await t.job(id)).id).toBe(id);
    });

    suite.test('envelope.args-and-meta-preserved', 'args and meta come back exactly as sent', async (t) => {
      const args = [1, 2.5, 1e-7, 'two', null, true, { nested: [1, { deep: 'x' }], ключ: 'значение' }, [3, [4]], 9007199254740991];
      const meta = { trace_id: 'abc', nested: { a: [1, 2], b: null }, 'ünïcødé key': '✓', empty: {} };
      const queue = t.queue();
      const job = await t.push(queue, { args, meta });
      expect(job.args).toEqual(args);
      expect(job.meta).toEqual(meta);
      const fetched = await t.claim(queue);
      expect(fetched.args).toEqual(args);
      expect(fetched.meta).toEqual(meta);
      expect(Object.keys(fetched.args[6] as object)).toEqual(['nested', 'ключ']);
    });

    suite.test('envelope.unknown-fields-kept', 'unknown top-level attributes are stored and echoed on every read', async (t) => {
      const queue = t.queue();
      const extra = { x_custom: { a: [1, 'b'] }, traceparent: '00-abc-def-01', x_flag: false, x_null: null };
      const job = await t.push(queue, extra);
      expect(job).toMatchObject(extra);
      expect(await t.job(job.id)).toMatchObject(extra);
      const fetched = await t.claim(queue);
      expect(fetched).toMatchObject(extra);
      const acked = await t.api.ack({ job_id: job.id });
      expect(acked.job).toMatchObject(extra);
    });

    suite.test('envelope.system-keys-ignored', 'system-managed keys sent by a client are ignored', async (t) => {
      // Held: the answer is compared with a later read, and a dispatch log would move the job to `pending` between.
      const queue = t.queue();
      t.dispatch.hold(queue);
      const job = await t.push(queue, {
        state: 'completed',
        attempt: 7,
        max_attempts: 99,
        created_at: '2000-01-01T00:00:00Z',
        enqueued_at: '2000-01-01T00:00:00Z',
        started_at: '2000-01-01T00:00:00Z',
        completed_at: '2000-01-01T00:00:00Z',
        cancelled_at: '2000-01-01T00:00:00Z',
        discarded_at: '2000-01-01T00:00:00Z',
        error: { code: 'x' },
        errors: [{ code: 'x' }],
        result: 'forged',
        worker_id: 'w',
        retry_delay_ms: 5,
        next_attempt_at: '2000-01-01T00:00:00Z',
        parent_results: [1],
        workflow_id: 'wf',
      });
      expect(job).toMatchObject({ state: 'available', attempt: 0, max_attempts: 3, created_at: t.iso(), enqueued_at: t.iso() });
      for (const key of [
        'started_at',
        'completed_at',
        'cancelled_at',
        'discarded_at',
        'error',
        'errors',
        'result',
        'worker_id',
        'retry_delay_ms',
        'next_attempt_at',
        'parent_results',
        'workflow_id',
      ]) {
        expect(job, `client-sent '${key}' must not be echoed`).not.toHaveProperty(key);
      }
      expect(await t.job(job.id)).toEqual(job);
    });

    suite.test('envelope.relative-times', '+duration times are resolved at enqueue to absolute UTC timestamps', async (t) => {
      const job = await t.push(t.queue(), { options: { scheduled_at: '+PT5S', expires_at: '+PT1H30M' } });
      expect(job.scheduled_at).toBe(t.iso(5_000));
      expect(job.expires_at).toBe(t.iso(5_400_000));
      expect(job.state).toBe('scheduled');
      const delayed = await t.push(t.queue(), { options: { delay_until: '+PT0.5S' } });
      expect(delayed.scheduled_at).toBe(t.iso(500));
      expect((await t.job(delayed.id)).scheduled_at).toBe(t.iso(500));
    });

    suite.test('envelope.client-timestamps-verbatim', 'client timestamps keep their offset and text', async (t) => {
      const at = new Date(t.now() + 3_600_000);
      const local = `${at.toISOString().slice(0, 19)}+00:00`;
      const job = await t.push(t.queue(), { options: { scheduled_at: local } });
      expect(job.scheduled_at).toBe(local);
      expect(job.state).toBe('scheduled');
    });

    suite.test('envelope.flat-form', 'the flat (core-style) request form is accepted', async (t) => {
      const queue = t.queue();
      const job = (await t.api.enqueue({ type: TEST_JOB_TYPE, args: [1], queue, priority: 5, timeout: 30, tags: ['a'], pending: true })).job;
      expect(job).toMatchObject({ queue, priority: 5, tags: ['a'], state: 'pending', timeout_ms: 30_000, timeout: 30 });
    });

    suite.test('envelope.options-win', 'when both forms give a value, options.* wins', async (t) => {
      const queue = t.queue();
      const job = (await t.api.enqueue({ type: TEST_JOB_TYPE, args: [], queue: t.queue(), priority: 1, options: { queue, priority: 9 } })).job;
      expect(job).toMatchObject({ queue, priority: 9 });
    });

    suite.test('envelope.options-echoed', 'options are echoed in their wire fields', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, {
        options: {
          priority: -7,
          timeout_ms: 12_000,
          visibility_timeout_ms: 9_000,
          tags: ['x', 'y'],
          retry: { max_attempts: 5 },
          metadata: { from_options: 1 },
        },
        meta: { kept: true },
      });
      expect(job).toMatchObject({
        priority: -7,
        timeout_ms: 12_000,
        visibility_timeout_ms: 9_000,
        tags: ['x', 'y'],
        max_attempts: 5,
        meta: { kept: true, from_options: 1 },
      });
      expect(job.retry).toEqual(retryPolicyToWire({ ...DEFAULT_RETRY_POLICY, maxAttempts: 5 }));
      expect(job).not.toHaveProperty('timeout');
    });

    for (const [what, body, field] of INVALID_FIELDS) {
      suite.test(`envelope.invalid.${field}.${what.replace(/[^a-z0-9]+/gi, '-')}`, `${what} → 400 invalid_request naming '${field}'`, async (t) => {
        const id = newId();
        const request = 'id' in body ? body : { ...body, id };
        const error = await expectOjsError(t.api.enqueue(request), { code: 'invalid_request' });
        expect(String(error.details?.field ?? error.message)).toContain(field);
        if (!('id' in body)) await expectOjsError(t.api.getJob(id), { code: 'not_found' });
      });
    }

    suite.test('envelope.invalid.body-not-object', 'a body that is not an object → 400 invalid_request', async (t) => {
      for (const body of [null, [], 'job', 7]) await expectOjsError(t.api.enqueue(body), { code: 'invalid_request' });
    });

    suite.test('envelope.invalid.specversion', 'specversion other than 1.0 → 400 invalid_request', async (t) => {
      await expectOjsError(t.api.enqueue({ type: TEST_JOB_TYPE, args: [], specversion: '2.0' }), { code: 'invalid_request' });
    });

    for (const [what, retry] of INVALID_RETRY) {
      suite.test(`envelope.invalid-retry.${what.replace(/[^a-z0-9]+/gi, '-')}`, `retry ${what} → 422 validation_error`, async (t) => {
        const id = newId();
        const error = await expectOjsError(t.api.enqueue({ id, type: TEST_JOB_TYPE, args: [], options: { retry } }), { code: 'validation_error' });
        expect(error.type).toBe('validation_error');
        expect(error.message).toMatch(/retry/);
        await expectOjsError(t.api.getJob(id), { code: 'not_found' });
      });
    }

    suite.test('envelope.validation-order', 'the first failing rule wins, in the protocol order', async (t) => {
      // type before args
      const error = await expectOjsError(t.api.enqueue({ type: 'BAD', args: 'bad' }), { code: 'invalid_request' });
      expect(String(error.details?.field)).toBe('type');
      // field rules (400) before the retry policy (422)
      await expectOjsError(t.api.enqueue({ type: TEST_JOB_TYPE, args: [], options: { queue: 'BAD', retry: { max_attempts: -1 } } }), {
        code: 'invalid_request',
      });
      // every rule before the duplicate-id check (409)
      const existing = await t.push(t.queue());
      await expectOjsError(t.api.enqueue({ id: existing.id, type: TEST_JOB_TYPE, args: [], options: { retry: { backoff_coefficient: 0.1 } } }), {
        code: 'validation_error',
      });
      await expectOjsError(t.api.enqueue({ id: existing.id, type: TEST_JOB_TYPE, args: null }), { code: 'invalid_request' });
    });

    suite.test('envelope.duplicate-id', 'an id already stored → 409 duplicate with existing_job_id; the stored job is unchanged', async (t) => {
      const queue = t.heldQueue();
      const existing = await t.push(queue, { args: ['original'] });
      await expectOjsError(t.api.enqueue({ id: existing.id, type: TEST_JOB_TYPE, args: ['other'], options: { queue } }), {
        code: 'duplicate',
        details: { existing_job_id: existing.id },
      });
      expect(await t.job(existing.id)).toEqual(existing);
    });

    suite.test('envelope.meta-too-large', 'meta above 64 KiB → 413 payload_too_large', async (t) => {
      const id = newId();
      await expectOjsError(t.api.enqueue({ id, type: TEST_JOB_TYPE, args: [], meta: { blob: 'x'.repeat(70_000) } }), { code: 'payload_too_large' });
      await expectOjsError(t.api.getJob(id), { code: 'not_found' });
    });

    suite.test('envelope.large-envelope-accepted', 'an envelope just under 1 MiB is accepted', async (t) => {
      const job = await t.push(t.queue(), { args: ['x'.repeat(1_000_000)] });
      expect((job.args[0] as string).length).toBe(1_000_000);
    });

    suite.test('envelope.reads-stable', 'two reads of an untouched job return identical bodies', async (t) => {
      const job = await t.push(t.queue(), { options: { scheduled_at: '+PT1M' } });
      const first = await t.job(job.id);
      t.clock.advance(10);
      expect(await t.job(job.id)).toEqual(first);
    });
  });
}
