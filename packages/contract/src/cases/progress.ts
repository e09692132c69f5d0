/** Progress extension: set/get, clamping, monotonicity, non-active jobs, deadline reset, lifecycle resets. */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

export function registerProgressCases(suite: Suite): void {
  suite.group('progress', () => {
    suite.test('progress.set-get', 'progress, message and data are stored and read back', async (t) => {
      const job = await INTO.active(t, t.queue());
      const res = await t.api.setProgress(job.id, { progress: 0.5, message: 'half', data: { rows: 10 } });
      expect(res).toEqual({ job_id: job.id, state: 'active', progress: 0.5, message: 'half', data: { rows: 10 }, updated_at: t.iso() });
      expect(await t.api.getProgress(job.id)).toEqual(res);
    });

    suite.test('progress.never-reported', 'a job that never reported progress reads as nulls', async (t) => {
      const job = await t.push(t.heldQueue());
      expect(await t.api.getProgress(job.id)).toMatchObject({ job_id: job.id, state: 'available', progress: null, message: null, data: null });
    });

    suite.test('progress.monotonic-and-clamped', 'progress is clamped into [0,1] and never decreases within an attempt', async (t) => {
      const job = await INTO.active(t, t.queue());
      await t.api.setProgress(job.id, { progress: 0.6, message: 'a' });
      const lower = await t.api.setProgress(job.id, { progress: 0.3, message: 'b' });
      expect(lower).toMatchObject({ progress: 0.6, message: 'b' });
      expect((await t.api.setProgress(job.id, { progress: 1.7 })).progress).toBe(1);
      const fresh = await INTO.active(t, t.queue());
      expect((await t.api.setProgress(fresh.id, { progress: -0.5 })).progress).toBe(0);
    });

    suite.test('progress.not-active', 'an update to a non-active job answers the stored values and changes nothing', async (t) => {
      const queue = t.queue();
      const job = await INTO.completed(t, queue);
      const before = await t.job(job.id);
      const res = await t.api.setProgress(job.id, { progress: 0.2, message: 'late' });
      expect(res).toMatchObject({ job_id: job.id, state: 'completed' });
      expect(res.message).not.toBe('late');
      expect(await t.job(job.id)).toEqual(before);
    });

    suite.test('progress.validation', 'an update with none of progress/message/data → 400; unknown job → 404', async (t) => {
      const job = await INTO.active(t, t.queue());
      await expectOjsError(t.api.setProgress(job.id, {}), { code: 'invalid_request' });
      await expectOjsError(t.api.setProgress('01970000-0000-7000-8000-000000000000', { progress: 0.1 }), { code: 'not_found' });
    });

    suite.test('progress.resets-deadline', 'a progress update resets the visibility deadline', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue, { visibility_timeout_ms: 1_000 });
      await t.advance(800);
      await t.api.setProgress(job.id, { progress: 0.1 });
      await t.advance(800);
      await t.expectState(job.id, 'active');
    });

    suite.test('progress.ack-completes', 'ACK sets progress to 1.0 when progress was reported', async (t) => {
      const job = await INTO.active(t, t.queue());
      await t.api.setProgress(job.id, { progress: 0.4 });
      await t.api.ack({ job_id: job.id });
      expect((await t.api.getProgress(job.id)).progress).toBe(1);
    });

    suite.test('progress.new-attempt', 'a new attempt starts with no progress', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { initial_interval: 'PT1S', jitter: false } } });
      await t.claim(queue);
      await t.api.setProgress(job.id, { progress: 0.9 });
      await t.api.nack({ job_id: job.id });
      expect((await t.api.getProgress(job.id)).progress).toBe(0.9);
      await t.advance(1_000);
      await t.claim(queue);
      expect((await t.api.getProgress(job.id)).progress).toBeNull();
    });
  });
}
