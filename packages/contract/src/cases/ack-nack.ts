/** ACK and FAIL (nack): response shapes, stored results and errors, requeue, worker-id checks. */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { FIXED_RETRY, INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';
import { expectServerTimestamp } from '../support/formats.js';

export function registerAckNackCases(suite: Suite): void {
  suite.group('ack', () => {
    suite.test('ack.shape', 'ACK completes the job, stores the result and answers the protocol shape', async (t) => {
      const queue = t.queue();
      const job = await INTO.active(t, queue);
      t.clock.advance(250);
      const result = { sent: true, ids: [1, 2], nested: { ok: null } };
      const res = await t.api.ack({ job_id: job.id, result });
      expect(res).toMatchObject({ acknowledged: true, id: job.id, job_id: job.id, state: 'completed', completed_at: t.iso() });
      expect(res.job).toMatchObject({ id: job.id, state: 'completed', result, completed_at: t.iso(), attempt: 1 });
      expect(await t.job(job.id)).toEqual(res.job);
    });

    suite.test('ack.without-result', 'ACK without a result leaves `result` absent', async (t) => {
      const job = await INTO.active(t, t.queue());
      const res = await t.api.ack({ job_id: job.id });
      expect(res.job).not.toHaveProperty('result');
    });

    suite.test('ack.scalar-result', 'a scalar or array result is stored as sent', async (t) => {
      const queue = t.queue();
      for (const result of [0, 'done', false, [1, [2]]]) {
        const job = await INTO.active(t, queue);
        await t.api.ack({ job_id: job.id, result });
        expect((await t.job(job.id)).result).toEqual(result);
      }
    });

    suite.test('ack.removes-error', 'ACK after a failed attempt removes `error` and keeps the history', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { ...FIXED_RETRY, initial_interval: 'PT1S' } } });
      await t.claim(queue);
      await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'first' } });
      await t.advance(1_000);
      await t.claim(queue);
      const res = await t.api.ack({ job_id: job.id, result: 'ok' });
      expect(res.job).not.toHaveProperty('error');
      expect(res.job.errors).toHaveLength(1);
      expect(res.job.attempt).toBe(2);
    });

    suite.test('ack.validation', 'ACK without job_id → 400 invalid_request', async (t) => {
      await expectOjsError(t.api.ack({}), { code: 'invalid_request' });
      await expectOjsError(t.api.ack({ job_id: 42 }), { code: 'invalid_request' });
    });

    suite.test('ack.stale-attempt', 'ACK or FAIL naming an attempt the job has moved past → 409 conflict; the newer attempt is untouched', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { visibility_timeout_ms: 1_000, retry: { ...FIXED_RETRY, max_attempts: 5 } } });
      await t.claim(queue, { worker_id: 'w' });
      await t.advance(1_001);
      const again = await t.claim(queue, { worker_id: 'w' });
      expect(again.attempt).toBe(2);
      await expectOjsError(t.api.ack({ job_id: job.id, worker_id: 'w', attempt: 1 }), { code: 'conflict' });
      await expectOjsError(t.api.nack({ job_id: job.id, worker_id: 'w', attempt: 1, error: { message: 'late' } }), { code: 'conflict' });
      await t.expectState(job.id, 'active');
      const res = await t.api.ack({ job_id: job.id, worker_id: 'w', attempt: 2 });
      expect(res.job.attempt).toBe(2);
    });

    suite.test('ack.other-worker', 'ACK carrying a different worker_id than the claimant → 409 conflict', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'owner' });
      await expectOjsError(t.api.ack({ job_id: job.id, worker_id: 'intruder' }), { code: 'conflict' });
      await t.expectState(job.id, 'active');
      await t.api.ack({ job_id: job.id, worker_id: 'owner' });
      await t.expectState(job.id, 'completed');
    });
  });

  suite.group('nack', () => {
    suite.test('nack.retryable-shape', 'FAIL with attempts left → retryable, with error history, delay and next_attempt_at', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: FIXED_RETRY } });
      await t.claim(queue);
      t.clock.advance(100);
      const res = await t.api.nack({ job_id: job.id, error: { code: 'smtp_down', message: 'SMTP unreachable', retryable: true } });
      expect(res).toMatchObject({
        id: job.id,
        job_id: job.id,
        state: 'retryable',
        attempt: 1,
        max_attempts: 3,
        retry_delay_ms: 60_000,
        next_attempt_at: t.iso(60_000),
      });
      const stored = await t.job(job.id);
      expect(stored).toMatchObject({ state: 'retryable', attempt: 1, retry_delay_ms: 60_000, next_attempt_at: t.iso(60_000) });
      expect(stored.error).toMatchObject({
        code: 'smtp_down',
        type: 'smtp_down',
        message: 'SMTP unreachable',
        retryable: true,
        attempt: 1,
        occurred_at: t.iso(),
      });
      expect(stored.errors).toEqual([stored.error]);
      expect(res.job).toEqual(stored);
    });

    suite.test('nack.without-error', 'FAIL without an error object records handler_error with an empty message', async (t) => {
      const job = await INTO.active(t, t.queue());
      await t.api.nack({ job_id: job.id });
      const stored = await t.job(job.id);
      expect(stored.state).toBe('retryable');
      expect(stored.error).toMatchObject({ code: 'handler_error', type: 'handler_error', message: '', attempt: 1 });
    });

    suite.test('nack.error-type', "error.type comes from the request's type, else details.error_class, else code", async (t) => {
      const queue = t.queue();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ code: 'c1', message: 'm', type: 'CustomType' }, 'CustomType'],
        [{ code: 'c2', message: 'm', details: { error_class: 'TimeoutError' } }, 'TimeoutError'],
        [{ code: 'c3', message: 'm' }, 'c3'],
      ];
      for (const [error, type] of cases) {
        const job = await INTO.active(t, queue);
        await t.api.nack({ job_id: job.id, error });
        expect((await t.job(job.id)).error?.type).toBe(type);
      }
    });

    suite.test('nack.error-details-copied', 'details and backtrace are copied into the error', async (t) => {
      const job = await INTO.active(t, t.queue());
      const details = { error_class: 'IOError', host: 'db1' };
      const backtrace = ['at a (a.js:1)', 'at b (b.js:2)'];
      await t.api.nack({ job_id: job.id, error: { code: 'io', message: 'disk', details, backtrace } });
      expect((await t.job(job.id)).error).toMatchObject({ details, backtrace });
    });

    suite.test('nack.discard-shape', 'FAIL on the last attempt → discarded with completed_at and discarded_at', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { max_attempts: 1 } } });
      await t.claim(queue);
      const res = await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'no' } });
      expect(res).toMatchObject({ state: 'discarded', attempt: 1, max_attempts: 1, discarded_at: t.iso(), completed_at: t.iso(), dead_lettered: false });
      const stored = await t.job(job.id);
      expect(stored).toMatchObject({ state: 'discarded', discarded_at: t.iso(), completed_at: t.iso() });
      expect(stored).not.toHaveProperty('next_attempt_at');
    });

    suite.test('nack.dead-lettered-flag', 'FAIL exhausting a dead_letter policy reports dead_lettered:true', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } } });
      await t.claim(queue);
      const res = await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'no' } });
      expect(res).toMatchObject({ state: 'discarded', dead_lettered: true });
    });

    suite.test('nack.requeue', 'FAIL with requeue:true → available now, no error recorded, started_at/worker_id cleared', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { priority: 3 } });
      await t.claim(queue, { worker_id: 'w' });
      t.clock.advance(10);
      const res = await t.api.nack({ job_id: job.id, requeue: true });
      expect(res).toMatchObject({ job_id: job.id, state: 'available' });
      const stored = await t.expectReady(job.id);
      expect(stored).toMatchObject({ priority: 3, enqueued_at: t.iso() });
      for (const absent of ['started_at', 'worker_id', 'error', 'errors', 'next_attempt_at']) expect(stored).not.toHaveProperty(absent);
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('nack.requeue-hands-back-attempt', 'requeue:true hands the attempt back: the next claim shows the same number', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      expect((await t.claim(queue)).attempt).toBe(1);
      await t.api.nack({ job_id: job.id, requeue: true });
      expect((await t.job(job.id)).attempt).toBe(0);
      expect((await t.claim(queue)).attempt).toBe(1);
    });

    suite.test('nack.validation', 'FAIL without job_id → 400 invalid_request', async (t) => {
      await expectOjsError(t.api.nack({ error: { code: 'x', message: 'y' } }), { code: 'invalid_request' });
    });

    suite.test('nack.other-worker', 'FAIL carrying a different worker_id than the claimant → 409 conflict', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'owner' });
      const before = await t.job(job.id);
      await expectOjsError(t.api.nack({ job_id: job.id, worker_id: 'intruder', error: { code: 'x', message: 'y' } }), { code: 'conflict' });
      expect(await t.job(job.id)).toEqual(before);
    });

    suite.test('nack.error-history-bounded', 'the error history keeps at least the 10 newest entries, oldest first', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { max_attempts: 12, initial_interval: 'PT1S', backoff_strategy: 'constant', jitter: false } } });
      for (let i = 1; i <= 12; i++) {
        await t.claim(queue);
        await t.api.nack({ job_id: job.id, error: { code: 'e', message: `failure ${i}` } });
        if (i < 12) await t.advance(1_000);
      }
      const stored = await t.job(job.id);
      expect(stored.state).toBe('discarded');
      const messages = stored.errors!.map((e) => e.message);
      expect(messages.length).toBeGreaterThanOrEqual(10);
      expect(messages.at(-1)).toBe('failure 12');
      expect(messages).toEqual([...messages].sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1])));
      expect(stored.error).toEqual(stored.errors!.at(-1));
      expectServerTimestamp(stored.error!.occurred_at, 'occurred_at');
    });
  });
}
