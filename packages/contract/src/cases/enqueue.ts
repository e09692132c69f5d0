/** PUSH: single jobs, all-or-nothing batches, pending + ACTIVATE, enqueue into a paused queue. */
import { expect } from 'vitest';
import type { OjsError } from '@ojskit/core';
import { newId } from '@ojskit/core/formats';
import { TEST_JOB_TYPE } from '../context.js';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

export function registerEnqueueCases(suite: Suite): void {
  suite.group('enqueue', () => {
    suite.test('enqueue.single', 'PUSH stores the job and INFO returns the same envelope', async (t) => {
      const queue = t.heldQueue();
      const res = await t.api.enqueue({ type: TEST_JOB_TYPE, args: ['a'], options: { queue } });
      expect(res.deduplicated).toBeUndefined();
      expect((await t.api.getJob(res.job.id)).job).toEqual(res.job);
    });

    suite.test('enqueue.batch', 'a batch is stored in request order and returns count', async (t) => {
      const queue = t.queue();
      const requests = Array.from({ length: 5 }, (_, i) => ({ type: TEST_JOB_TYPE, args: [i], options: { queue } }));
      const res = await t.api.enqueueBatch({ jobs: requests });
      expect(res.count).toBe(5);
      expect(res.jobs.map((j) => j.args[0])).toEqual([0, 1, 2, 3, 4]);
      for (const job of res.jobs) await t.expectReady(job.id);
      expect(await t.claimIds([queue], 5)).toEqual(res.jobs.map((j) => j.id));
    });

    suite.test(
      'enqueue.batch-large',
      'a batch of 1000 jobs is accepted',
      async (t) => {
        const queue = t.heldQueue();
        const res = await t.api.enqueueBatch({ jobs: Array.from({ length: 1000 }, (_, i) => ({ type: TEST_JOB_TYPE, args: [i], options: { queue } })) });
        expect(res.count).toBe(1000);
        await t.expectStats(queue, { available: 1000 });
      },
      { timeoutMs: 60_000 },
    );

    suite.test('enqueue.batch-all-or-nothing', 'one invalid element rejects the whole batch with details.index; nothing is stored', async (t) => {
      const queue = t.queue();
      const ids = [newId(), newId(), newId()];
      const error = await expectOjsError(
        t.api.enqueueBatch({
          jobs: [
            { id: ids[0], type: TEST_JOB_TYPE, args: [], options: { queue } },
            { id: ids[1], type: TEST_JOB_TYPE, args: 'not-an-array', options: { queue } },
            { id: ids[2], type: TEST_JOB_TYPE, args: [], options: { queue } },
          ],
        }),
        { code: 'invalid_request', details: { index: 1 } },
      );
      expect(error.message).toContain('1');
      for (const id of ids) await expectOjsError(t.api.getJob(id), { code: 'not_found' });
      await t.expectStats(queue, { available: 0 });
    });

    suite.test('enqueue.batch-invalid-retry', 'a bad retry policy in a batch element is rejected with its index; nothing stored', async (t) => {
      const queue = t.queue();
      const first = newId();
      // The batch rule says 400 for any element; the envelope rule says 422 for a retry policy. Either is
      // acceptable here; the index and the all-or-nothing outcome are not negotiable.
      const error = await t.api
        .enqueueBatch({
          jobs: [
            { id: first, type: TEST_JOB_TYPE, args: [], options: { queue } },
            { type: TEST_JOB_TYPE, args: [], options: { queue, retry: { max_attempts: -2 } } },
          ],
        })
        .then(
          () => undefined,
          (e: unknown) => e as OjsError,
        );
      expect(error, 'the batch must be rejected').toBeDefined();
      expect(['invalid_request', 'validation_error']).toContain(error!.code);
      expect(error!.details).toMatchObject({ index: 1 });
      await expectOjsError(t.api.getJob(first), { code: 'not_found' });
    });

    suite.test('enqueue.batch-duplicate-id', 'a batch reusing a stored id → 409 duplicate; nothing from it is stored', async (t) => {
      const queue = t.heldQueue();
      const existing = await t.push(queue);
      const fresh = newId();
      await expectOjsError(
        t.api.enqueueBatch({
          jobs: [
            { id: fresh, type: TEST_JOB_TYPE, args: [], options: { queue } },
            { id: existing.id, type: TEST_JOB_TYPE, args: [], options: { queue } },
          ],
        }),
        { code: 'duplicate', details: { index: 1 } },
      );
      await expectOjsError(t.api.getJob(fresh), { code: 'not_found' });
      await t.expectStats(queue, { available: 1 });
    });

    suite.test('enqueue.batch-shape', 'a batch must be {"jobs":[…]} with at least one element', async (t) => {
      for (const body of [{}, { jobs: [] }, { jobs: 'x' }, [{ type: TEST_JOB_TYPE, args: [] }], null]) {
        await expectOjsError(t.api.enqueueBatch(body), { code: 'invalid_request' });
      }
    });

    suite.test('enqueue.pending-activate', 'a pending job waits for ACTIVATE, then becomes fetchable', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { pending: true } });
      expect(job.state).toBe('pending');
      expect(await t.claimIds([queue])).toEqual([]);
      await t.advance(60_000);
      await t.expectState(job.id, 'pending');
      const res = await t.api.activateJob(job.id);
      expect(res.job).toMatchObject({ id: job.id, state: 'available', previous_state: 'pending', activated_at: t.iso(), enqueued_at: t.iso() });
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('enqueue.pending-scheduled', 'a pending job with scheduled_at still waits for ACTIVATE', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { pending: true, scheduled_at: '+PT1S' } });
      expect(job.state).toBe('pending');
      await t.advance(5_000);
      await t.expectState(job.id, 'pending');
    });

    suite.test('enqueue.paused-queue-accepted', 'enqueue into a paused queue is accepted; the job is not delivered until resume', async (t) => {
      const queue = t.queue();
      await t.api.pauseQueue(queue);
      const job = await t.push(queue);
      expect(job.state).toBe('available');
      expect(await t.claimIds([queue])).toEqual([]);
      await t.api.resumeQueue(queue);
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });
  });
}
