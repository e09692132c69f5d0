/** Unique jobs: conflict rules, blocking states, period, dimensions, batches. */
import { expect } from 'vitest';
import { newId } from '@ojskit/core/formats';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

export function registerUniqueCases(suite: Suite): void {
  suite.group('unique', () => {
    // Every case puts its queue name into the args: fingerprints default to type+args, and cases may share a store.

    suite.test('unique.reject', 'a duplicate under on_conflict:reject → 409 duplicate with existing_job_id; nothing stored', async (t) => {
      const queue = t.queue();
      const first = await t.push(queue, { args: [queue], options: { unique: {} } });
      const id = newId();
      const error = await expectOjsError(t.push(queue, { id, args: [queue], options: { unique: {} } }), {
        code: 'duplicate',
        details: { existing_job_id: first.id },
      });
      expect(error.details?.unique_key).toBeTruthy();
      await expectOjsError(t.api.getJob(id), { code: 'not_found' });
      await t.expectStats(queue, { available: 1 });
    });

    suite.test('unique.distinct-args', 'jobs with different args are not duplicates', async (t) => {
      const queue = t.queue();
      await t.push(queue, { args: [queue, 1], options: { unique: {} } });
      await t.push(queue, { args: [queue, 2], options: { unique: {} } });
      await t.push(queue, { type: 'contract.other', args: [queue, 1], options: { unique: {} } });
      await t.expectStats(queue, { available: 3 });
    });

    suite.test('unique.ignore', 'on_conflict:ignore answers the existing job with deduplicated:true; nothing created', async (t) => {
      const queue = t.queue();
      // Held: the answer is the job as the insert read it, compared with a later read, and a dispatch log
      // would move it to `pending` in between.
      t.dispatch.hold(queue);
      const first = await t.push(queue, { args: [queue], options: { unique: { on_conflict: 'ignore' } } });
      const id = newId();
      const res = await t.api.enqueue({ id, type: 'contract.job', args: [queue], options: { queue, unique: { on_conflict: 'ignore' } } });
      expect(res.deduplicated).toBe(true);
      expect(res.job).toEqual(await t.job(first.id));
      await expectOjsError(t.api.getJob(id), { code: 'not_found' });
    });

    suite.test('unique.use-existing', 'on_conflict:use_existing is an alias of ignore', async (t) => {
      const queue = t.queue();
      const first = await t.push(queue, { args: [queue], options: { unique: { on_conflict: 'use_existing' } } });
      const res = await t.api.enqueue({ type: 'contract.job', args: [queue], options: { queue, unique: { on_conflict: 'use_existing' } } });
      expect(res).toMatchObject({ deduplicated: true, job: { id: first.id } });
    });

    suite.test('unique.replace', 'on_conflict:replace cancels the existing job and stores the new one', async (t) => {
      const queue = t.queue();
      const first = await t.push(queue, { args: [queue], options: { unique: { on_conflict: 'replace' } } });
      const res = await t.api.enqueue({ type: 'contract.job', args: [queue], options: { queue, unique: { on_conflict: 'replace' } } });
      expect(res.deduplicated).toBeUndefined();
      expect(res.job.id).not.toBe(first.id);
      expect(await t.job(first.id)).toMatchObject({ state: 'cancelled', cancelled_at: t.iso() });
      expect(await t.claimIds([queue], 5)).toEqual([res.job.id]);
    });

    suite.test('unique.replace-except-schedule', 'replace_except_schedule keeps the old scheduled_at for the new job', async (t) => {
      const queue = t.queue();
      const unique = { on_conflict: 'replace_except_schedule' };
      const first = await t.push(queue, { args: [queue], options: { unique, scheduled_at: '+PT1H' } });
      const second = await t.push(queue, { args: [queue], options: { unique } });
      expect(second).toMatchObject({ state: 'scheduled', scheduled_at: first.scheduled_at });
      await t.expectState(first.id, 'cancelled');
      await t.advance(3_600_000);
      expect(await t.claimIds([queue])).toEqual([second.id]);
    });

    suite.test('unique.default-states', 'a terminal job no longer blocks by default', async (t) => {
      const queue = t.queue();
      const blocking = { args: [queue], options: { unique: {} } };
      for (const state of ['scheduled', 'available', 'pending', 'active', 'retryable'] as const) {
        const job = await INTO[state](t, queue, blocking);
        await expectOjsError(t.push(queue, blocking), { code: 'duplicate', details: { existing_job_id: job.id } });
        if (state === 'active') await t.api.ack({ job_id: job.id });
        else await t.api.cancelJob(job.id);
      }
      const done = await INTO.completed(t, queue, blocking);
      const next = await t.push(queue, blocking);
      expect(next.id).not.toBe(done.id);
    });

    suite.test('unique.custom-states', 'unique.states names the blocking states', async (t) => {
      const queue = t.queue();
      const policy = { args: [queue], options: { unique: { states: ['completed'] } } };
      const first = await INTO.completed(t, queue, policy);
      await expectOjsError(t.push(queue, policy), { code: 'duplicate', details: { existing_job_id: first.id } });
      const other = t.queue();
      const activeOnly = { args: [other], options: { unique: { states: ['active'] } } };
      await t.push(other, activeOnly);
      await t.push(other, activeOnly);
      await t.expectStats(other, { available: 2 });
    });

    suite.test(
      'unique.business-key-active',
      'a business key (one args field) unique among running jobs only: queued twins wait, a second runner is refused',
      async (t) => {
        // The scheduler design's "business key unique among active jobs" (UNIVERSAL_MODEL behaviours).
        const queue = t.queue();
        const order = (attempt: number) => ({ args: [{ order_id: queue, attempt }], options: { unique: { args_keys: ['order_id'], states: ['active'] } } });
        const running = await INTO.active(t, queue, order(1));
        await expectOjsError(t.push(queue, order(2)), { code: 'duplicate', details: { existing_job_id: running.id } });
        await t.api.ack({ job_id: running.id });
        const next = await t.push(queue, order(3));
        const twin = await t.push(queue, order(4));
        expect(twin.id).not.toBe(next.id);
        await t.expectStats(queue, { available: 2 });
      },
    );

    suite.test('unique.period', "the period window is measured from the existing job's created_at", async (t) => {
      const queue = t.queue();
      const policy = { args: [queue], options: { unique: { period: 'PT1M' } } };
      const first = await t.push(queue, policy);
      t.clock.advance(59_999);
      await expectOjsError(t.push(queue, policy), { code: 'duplicate', details: { existing_job_id: first.id } });
      t.clock.advance(1);
      const second = await t.push(queue, policy);
      expect(second.id).not.toBe(first.id);
      await t.expectReady(first.id);
    });

    suite.test('unique.keys-queue', "keys:['queue'] makes the fingerprint type+queue", async (t) => {
      const queue = t.queue();
      const policy = (arg: number) => ({ args: [arg], options: { unique: { keys: ['queue'] } } });
      await t.push(queue, policy(1));
      await expectOjsError(t.push(queue, policy(2)), { code: 'duplicate' });
      await t.push(t.queue(), policy(1));
    });

    suite.test('unique.args-keys', 'args_keys (and the legacy key) select the arg fields that count', async (t) => {
      const queue = t.queue();
      for (const unique of [{ args_keys: ['user'] }, { key: ['user'] }]) {
        const user = `${queue}-${JSON.stringify(unique)}`;
        await t.push(queue, { args: [{ user, nonce: 1 }], options: { unique } });
        await expectOjsError(t.push(queue, { args: [{ user, nonce: 2 }], options: { unique } }), { code: 'duplicate' });
        await t.push(queue, { args: [{ user: `${user}-other`, nonce: 1 }], options: { unique } });
      }
    });

    suite.test('unique.meta-keys', "keys:['meta'] with meta_keys compares the selected meta fields", async (t) => {
      const queue = t.queue();
      const unique = { keys: ['meta'], meta_keys: ['tenant'] };
      await t.push(queue, { args: [1], meta: { tenant: queue, trace: 'a' }, options: { unique } });
      await expectOjsError(t.push(queue, { args: [2], meta: { tenant: queue, trace: 'b' }, options: { unique } }), { code: 'duplicate' });
      await t.push(queue, { args: [1], meta: { tenant: `${queue}-2` }, options: { unique } });
      await expectOjsError(t.push(queue, { args: [], options: { unique: { keys: ['meta'] } } }), { code: 'invalid_request' });
    });

    suite.test('unique.batch-reject', 'a batch whose element duplicates an earlier element → 409; nothing stored', async (t) => {
      const queue = t.queue();
      const ids = [newId(), newId()];
      await expectOjsError(
        t.api.enqueueBatch({
          jobs: ids.map((id) => ({ id, type: 'contract.job', args: [queue], options: { queue, unique: {} } })),
        }),
        { code: 'duplicate', details: { index: 1 } },
      );
      for (const id of ids) await expectOjsError(t.api.getJob(id), { code: 'not_found' });
    });

    suite.test('unique.batch-against-stored', 'a batch element duplicating a stored job → 409; nothing from the batch stored', async (t) => {
      const queue = t.queue();
      await t.push(queue, { args: [queue], options: { unique: {} } });
      const fresh = newId();
      await expectOjsError(
        t.api.enqueueBatch({
          jobs: [
            { id: fresh, type: 'contract.job', args: [queue, 'new'], options: { queue, unique: {} } },
            { type: 'contract.job', args: [queue], options: { queue, unique: {} } },
          ],
        }),
        { code: 'duplicate', details: { index: 1 } },
      );
      await expectOjsError(t.api.getJob(fresh), { code: 'not_found' });
    });

    suite.test('unique.invalid', 'an invalid unique policy → 400 invalid_request', async (t) => {
      for (const unique of [{ on_conflict: 'merge' }, { period: 'soon' }, { keys: 'type' }, 'yes']) {
        await expectOjsError(t.push(t.queue(), { options: { unique } }), { code: 'invalid_request' });
      }
    });
  });
}
