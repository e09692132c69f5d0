/** CANCEL: from every cancellable state, active jobs, terminal refusals, and what cancellation removes. */
import { expect } from 'vitest';
import { JOB_STATES } from '@ojskit/core';
import { allowedFrom } from '@ojskit/core/lifecycle';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

export function registerCancelCases(suite: Suite): void {
  suite.group('cancel', () => {
    for (const from of allowedFrom('cancelled', 'cancel')) {
      suite.test(`cancel.from-${from}`, `CANCEL of a ${from} job → cancelled with cancelled_at and previous_state`, async (t) => {
        // Held when cancelling from `available`, so a dispatch log leaves the job there until the CANCEL.
        const queue = from === 'available' ? t.heldQueue() : t.queue();
        const job = await INTO[from](t, queue);
        t.clock.advance(5);
        const res = await t.api.cancelJob(job.id);
        expect(res.job).toMatchObject({ id: job.id, state: 'cancelled', cancelled_at: t.iso(), previous_state: from });
        expect(res.job).not.toHaveProperty('completed_at');
        expect(res.job).not.toHaveProperty('discarded_at');
        const { previous_state: _previous, ...stored } = res.job;
        expect(await t.job(job.id)).toEqual(stored);
        // A cancelled job is in no index: never fetched, promoted, rescued or expired.
        await t.advance(4 * 3_600_000);
        await t.dispatch.release(queue);
        expect(await t.claimIds([queue], 10)).toEqual([]);
        expect(await t.job(job.id)).toEqual(stored);
      });
    }

    suite.test('cancel.active-keeps-attempt', 'cancelling an active job keeps started_at and attempt; the later ACK/FAIL → 409', async (t) => {
      const job = await INTO.active(t, t.queue());
      const res = await t.api.cancelJob(job.id);
      expect(res.job).toMatchObject({ state: 'cancelled', started_at: job.started_at, attempt: 1 });
      await expectOjsError(t.api.ack({ job_id: job.id, result: 'late' }), {
        code: 'conflict',
        details: { job_id: job.id, current_state: 'cancelled', expected_state: 'active' },
      });
      await expectOjsError(t.api.nack({ job_id: job.id, error: { code: 'e', message: 'late' } }), {
        code: 'conflict',
        details: { current_state: 'cancelled' },
      });
      const stored = await t.job(job.id);
      expect(stored.state).toBe('cancelled');
      expect(stored).not.toHaveProperty('result');
    });

    suite.test('cancel.active-heartbeat', 'a heartbeat for a cancelled job does not extend it', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: 'w' });
      await t.api.cancelJob(job.id);
      const res = await t.api.heartbeat({ worker_id: 'w', active_job_ids: [job.id] });
      expect(res.jobs_extended).toEqual([]);
    });

    for (const terminal of JOB_STATES.filter((s) => !allowedFrom('cancelled', 'cancel').includes(s))) {
      suite.test(`cancel.terminal-${terminal}`, `CANCEL of a ${terminal} job → 409 conflict naming the state`, async (t) => {
        const job = await INTO[terminal](t, t.queue());
        const before = await t.job(job.id);
        const error = await expectOjsError(t.api.cancelJob(job.id), { code: 'conflict', details: { job_id: job.id, current_state: terminal } });
        expect(error.message).toContain(terminal);
        expect(await t.job(job.id)).toEqual(before);
      });
    }

    suite.test('cancel.not-in-dead-letter', 'a cancelled job never enters the dead-letter queue', async (t) => {
      const queue = t.queue();
      const job = await INTO.retryable(t, queue, { options: { retry: { on_exhaustion: 'dead_letter' } } });
      await t.api.cancelJob(job.id);
      await expectOjsError(t.api.getDeadLetter(job.id), { code: 'not_found' });
      expect((await t.api.listDeadLetter({ queue })).jobs).toEqual([]);
    });
  });
}
