/** Scheduling and expiry: scheduled_at/delay_until, promotion, expires_at never claimed after. */
import { expect } from 'vitest';
import type { Job } from '@ojskit/core';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { FIXED_RETRY } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

/** An expired job: discarded with discarded_at and expired_at, no completed_at, never in the DLQ, never run. */
async function expectExpired(t: CaseContext, id: string): Promise<Job> {
  const job = await t.expectState(id, 'discarded');
  expect(job.expired_at, 'expired_at').toBeDefined();
  expect(job.discarded_at, 'discarded_at').toBeDefined();
  expect(job).not.toHaveProperty('completed_at');
  await expectOjsError(t.api.getDeadLetter(id), { code: 'not_found' });
  return job;
}

export function registerSchedulingCases(suite: Suite): void {
  suite.group('scheduling', () => {
    suite.test('scheduling.future', 'a future scheduled_at → scheduled, then available at its time', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { scheduled_at: t.iso(30_000) } });
      expect(job).toMatchObject({ state: 'scheduled', scheduled_at: t.iso(30_000) });
      expect(job).not.toHaveProperty('enqueued_at');
      await t.advance(29_999);
      await t.expectState(job.id, 'scheduled');
      await t.advance(1);
      const promoted = await t.expectReady(job.id);
      expect(promoted.enqueued_at).toBe(t.iso());
      expect(promoted.scheduled_at).toBe(job.scheduled_at);
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('scheduling.past', 'a scheduled_at at or before now → available at once, scheduled_at echoed', async (t) => {
      const queue = t.queue();
      const past = await t.push(queue, { options: { scheduled_at: t.iso(-60_000) } });
      const now = await t.push(queue, { options: { scheduled_at: t.iso() } });
      expect(past).toMatchObject({ state: 'available', scheduled_at: t.iso(-60_000), enqueued_at: t.iso() });
      expect(now.state).toBe('available');
      expect(await t.claimIds([queue], 2)).toEqual([past.id, now.id]);
    });

    suite.test('scheduling.delay-until', 'delay_until is an alias of scheduled_at', async (t) => {
      const job = await t.push(t.queue(), { options: { delay_until: t.iso(5_000) } });
      expect(job).toMatchObject({ state: 'scheduled', scheduled_at: t.iso(5_000) });
    });

    suite.test('scheduling.flat-form', 'the flat scheduled_at is honoured', async (t) => {
      const queue = t.queue();
      const job = (await t.api.enqueue({ type: 'contract.job', args: [], queue, scheduled_at: t.iso(5_000) })).job;
      expect(job.state).toBe('scheduled');
    });

    suite.test('scheduling.offset-honoured', 'a timestamp with a non-UTC offset is compared by its instant', async (t) => {
      const queue = t.queue();
      const at = new Date(t.now() + 2 * 3_600_000 + 10_000);
      // The same instant written in UTC+02:00.
      const shifted = new Date(at.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      const job = await t.push(queue, { options: { scheduled_at: shifted } });
      expect(job.scheduled_at).toBe(shifted);
      await t.advance(2 * 3_600_000 + 9_999);
      await t.expectState(job.id, 'scheduled');
      await t.advance(1);
      await t.expectReady(job.id);
    });
  });

  suite.group('expiry', () => {
    suite.test('expiry.claimable-before', 'a job is claimable until its expires_at', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { expires_at: '+PT10S' } });
      t.clock.advance(9_999);
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('expiry.fetch-discards', 'FETCH never returns an expired job and discards it on the spot', async (t) => {
      const queue = t.queue();
      const expired = await t.push(queue, { options: { expires_at: '+PT10S' } });
      const fresh = await t.push(queue);
      t.clock.advance(10_001);
      expect(await t.claimIds([queue], 5)).toEqual([fresh.id]);
      await expectExpired(t, expired.id);
    });

    suite.test('expiry.swept', 'maintenance sweeps expired jobs to discarded', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { expires_at: '+PT10S' } });
      // With a dispatch log, a job the log moves to `pending` while a sweep runs can be missed by that sweep (the
      // move holds the row when the sweep looks at `available` jobs, and has not committed when it lists the
      // delivered ones) and is swept by the next: settled first, one sweep is enough.
      await t.dispatch.settle();
      await t.advance(10_001);
      const after = await expectExpired(t, job.id);
      expect(after.expired_at).toBe(t.iso());
    });

    suite.test('expiry.active-not-expired', 'a job already active is not expired; its ACK succeeds', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { expires_at: '+PT10S' } });
      await t.claim(queue);
      await t.advance(60_000);
      await t.expectState(job.id, 'active');
      await t.api.ack({ job_id: job.id });
      await t.expectState(job.id, 'completed');
    });

    suite.test('expiry.scheduled', 'a scheduled job that expires before its time is discarded, never run', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { scheduled_at: '+PT1M', expires_at: '+PT30S' } });
      t.clock.advance(61_000);
      expect(await t.claimIds([queue])).toEqual([]);
      await expectExpired(t, job.id);
    });

    suite.test('expiry.retryable', 'a retryable job whose expires_at passes before its retry is discarded, never re-run', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { expires_at: '+PT30S', retry: FIXED_RETRY } });
      await t.claim(queue);
      await t.api.nack({ job_id: job.id, error: { code: 'e', message: 'x' } });
      t.clock.advance(61_000);
      expect(await t.claimIds([queue])).toEqual([]);
      const after = await expectExpired(t, job.id);
      expect(after.errors).toHaveLength(1);
    });
  });
}
