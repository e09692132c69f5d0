/** Reservations: visibility deadlines and their reclaim, heartbeats, execution timeouts. */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

export function registerVisibilityCases(suite: Suite): void {
  suite.group('visibility', () => {
    suite.test('visibility.reclaim', 'an expired reservation returns the job to available, consuming the attempt', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'w', visibility_timeout_ms: 1_000 });
      await t.advance(999);
      await t.expectState(job.id, 'active');
      await t.advance(2);
      const after = await t.expectReady(job.id);
      expect(after.attempt).toBe(1);
      expect(after.enqueued_at).toBe(t.iso());
      expect(after.error).toMatchObject({ type: 'visibility_timeout', attempt: 1 });
      expect(after.errors).toHaveLength(1);
      for (const absent of ['started_at', 'worker_id', 'next_attempt_at']) expect(after).not.toHaveProperty(absent);
      expect((await t.claim(queue)).attempt).toBe(2);
    });

    suite.test('visibility.reclaim-no-backoff', 'a reclaimed job is claimable at once (no backoff)', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { initial_interval: 'PT1H' } } });
      await t.claim(queue, { visibility_timeout_ms: 1_000 });
      await t.advance(1_001);
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('visibility.reclaim-exhausted', 'a reclaim on the last attempt discards the job', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { max_attempts: 2, on_exhaustion: 'dead_letter' } } });
      await t.claim(queue, { visibility_timeout_ms: 1_000 });
      await t.advance(1_001);
      await t.expectReady(job.id);
      await t.claim(queue, { visibility_timeout_ms: 1_000 });
      await t.advance(1_001);
      const after = await t.expectState(job.id, 'discarded');
      expect(after).toMatchObject({ attempt: 2, discarded_at: t.iso(), completed_at: t.iso() });
      expect(after.errors!.map((e) => e.type)).toEqual(['visibility_timeout', 'visibility_timeout']);
      expect((await t.api.getDeadLetter(job.id)).job.id).toBe(job.id);
    });

    suite.test('visibility.job-timeout', "without a fetch value the job's visibility_timeout_ms applies", async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { visibility_timeout_ms: 5_000 } });
      await t.claim(queue);
      await t.advance(4_999);
      await t.expectState(job.id, 'active');
      await t.advance(2);
      await t.expectReady(job.id);
    });

    suite.test('visibility.fetch-overrides-job', "the fetch's visibility_timeout_ms wins over the job's", async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { visibility_timeout_ms: 60_000 } });
      await t.claim(queue, { visibility_timeout_ms: 2_000 });
      await t.advance(2_001);
      await t.expectReady(job.id);
    });

    suite.test('visibility.server-default', 'the server default reservation is 1800 s', async (t) => {
      const queue = t.queue();
      // A longer execution limit, so the default execution timeout (also 1800 s) does not fire first.
      const job = await t.push(queue, { options: { timeout_ms: 7_200_000 } });
      await t.claim(queue);
      await t.advance(1_799_000);
      await t.expectState(job.id, 'active');
      await t.advance(2_000);
      await t.expectReady(job.id);
    });

    suite.test('visibility.stale-ack', 'ACK/FAIL after the reservation was reclaimed → 409 conflict', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { visibility_timeout_ms: 1_000 });
      // Kept where the reclaim puts it, so the conflict names that state (a dispatch log would deliver it on).
      t.dispatch.hold(queue);
      await t.advance(1_001);
      await expectOjsError(t.api.ack({ job_id: job.id }), { code: 'conflict', details: { current_state: 'available' } });
      await expectOjsError(t.api.nack({ job_id: job.id }), { code: 'conflict', details: { current_state: 'available' } });
      await t.expectReady(job.id);
    });

    suite.test('visibility.stale-ack-other-claimant', 'a stale ACK from the first worker after another worker re-claimed → 409', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'first', visibility_timeout_ms: 1_000 });
      await t.advance(1_001);
      await t.claim(queue, { worker_id: 'second' });
      await expectOjsError(t.api.ack({ job_id: job.id, worker_id: 'first' }), { code: 'conflict' });
      await t.expectState(job.id, 'active');
      await t.api.ack({ job_id: job.id, worker_id: 'second', result: 'mine' });
      expect((await t.job(job.id)).result).toBe('mine');
    });
  });

  suite.group('heartbeat', () => {
    suite.test('heartbeat.extends', 'a heartbeat extends the deadline: the job survives past its original deadline', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'w', visibility_timeout_ms: 1_000 });
      await t.advance(800);
      const res = await t.api.heartbeat({ worker_id: 'w', active_job_ids: [job.id] });
      expect(res).toMatchObject({ state: 'running', directive: 'running', jobs_extended: [job.id], server_time: t.iso() });
      await t.advance(800);
      await t.expectState(job.id, 'active');
      await t.advance(201);
      await t.expectReady(job.id);
    });

    suite.test('heartbeat.visibility-override', "a heartbeat's visibility_timeout_ms sets the new deadline", async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'w', visibility_timeout_ms: 1_000 });
      await t.api.heartbeat({ worker_id: 'w', active_job_ids: [job.id], visibility_timeout_ms: 10_000 });
      await t.advance(9_999);
      await t.expectState(job.id, 'active');
      await t.advance(2);
      await t.expectReady(job.id);
    });

    suite.test('heartbeat.id-forms', 'ids to extend come from active_job_ids, active_jobs (array) and job_id', async (t) => {
      const queue = t.queue();
      const [a, b, c] = [await t.push(queue), await t.push(queue), await t.push(queue)];
      await t.api.fetch({ queues: [queue], count: 3, worker_id: 'w', visibility_timeout_ms: 1_000 });
      const res = await t.api.heartbeat({ worker_id: 'w', active_job_ids: [a.id], active_jobs: [b.id], job_id: c.id });
      expect([...res.jobs_extended].sort()).toEqual([a.id, b.id, c.id].sort());
      const counted = await t.api.heartbeat({ worker_id: 'w', active_jobs: 3, active_job_ids: [a.id] });
      expect(counted.jobs_extended).toEqual([a.id]);
    });

    suite.test('heartbeat.skips-non-active', 'unknown and non-active ids are skipped silently and left untouched', async (t) => {
      const queue = t.queue();
      const waiting = await t.push(queue, { options: { scheduled_at: '+PT1H' } });
      const res = await t.api.heartbeat({ worker_id: 'w', active_job_ids: [waiting.id, '01970000-0000-7000-8000-000000000000'] });
      expect(res.jobs_extended).toEqual([]);
      expect(await t.job(waiting.id)).toEqual(waiting);
    });

    suite.test('heartbeat.worker-only', 'a heartbeat without jobs answers the directive', async (t) => {
      const res = await t.api.heartbeat({ worker_id: `w-${t.uniqueName()}`, hostname: 'h', pid: 1, queues: [t.queue()] });
      expect(res).toMatchObject({ state: 'running', directive: 'running', jobs_extended: [] });
    });

    suite.test('heartbeat.validation', 'a heartbeat without worker_id → 400 invalid_request', async (t) => {
      await expectOjsError(t.api.heartbeat({ active_job_ids: [] }), { code: 'invalid_request' });
    });
  });

  suite.group('execution timeout', () => {
    suite.test('timeout.execution', 'a job running past timeout_ms fails with a timeout error and retries', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { timeout_ms: 1_000, retry: { initial_interval: 'PT10S', jitter: false } } });
      await t.claim(queue);
      await t.advance(999);
      await t.expectState(job.id, 'active');
      await t.advance(2);
      const after = await t.expectState(job.id, 'retryable');
      expect(after.error).toMatchObject({ code: 'timeout', type: 'timeout', attempt: 1 });
      const kind = after.error!.timeout_kind ?? (after.error!.details as Record<string, unknown> | undefined)?.timeout_kind;
      expect(kind).toBe('execution');
      expect(after).toMatchObject({ retry_delay_ms: 10_000, next_attempt_at: t.iso(10_000) });
    });

    suite.test('timeout.flat-seconds', 'the flat `timeout` (seconds) sets the execution limit', async (t) => {
      const queue = t.queue();
      const job = (await t.api.enqueue({ type: 'contract.job', args: [], queue, timeout: 2 })).job;
      await t.claim(queue);
      await t.advance(1_999);
      await t.expectState(job.id, 'active');
      await t.advance(2);
      expect((await t.job(job.id)).error?.type).toBe('timeout');
    });

    suite.test('timeout.heartbeat-does-not-extend', 'heartbeats extend the reservation but never the execution limit', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { timeout_ms: 2_000 } });
      await t.claim(queue, { worker_id: 'w', visibility_timeout_ms: 1_000 });
      for (let i = 0; i < 2; i++) {
        await t.advance(800);
        expect((await t.api.heartbeat({ worker_id: 'w', active_job_ids: [job.id] })).jobs_extended).toEqual([job.id]);
      }
      await t.advance(401);
      const after = await t.job(job.id);
      expect(after.state).toBe('retryable');
      expect(after.error?.type).toBe('timeout');
    });

    suite.test('timeout.exhausted', 'an execution timeout on the last attempt discards the job', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { timeout_ms: 1_000, retry: { max_attempts: 1 } } });
      await t.claim(queue);
      await t.advance(1_001);
      const after = await t.expectState(job.id, 'discarded');
      expect(after).toMatchObject({ discarded_at: t.iso(), completed_at: t.iso() });
      expect(after.error?.type).toBe('timeout');
    });
  });
}
