/** Queues: pause/resume semantics and shapes, listing, exact per-state stats. */
import { expect } from 'vitest';
import { JOB_STATES, type JobState, type OjsApi, type QueueSummary } from '@ojskit/core';
import { canTransition } from '@ojskit/core/lifecycle';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

/** Finds a queue in the (possibly shared, paginated) queue list. */
async function findQueue(api: OjsApi, name: string): Promise<QueueSummary | undefined> {
  for (let offset = 0; ;) {
    const page = await api.listQueues({ limit: 200, offset });
    const found = page.queues.find((q) => q.name === name);
    if (found || !page.pagination.has_more || page.queues.length === 0) return found;
    offset += page.queues.length;
  }
}

export function registerQueueCases(suite: Suite): void {
  suite.group('queues', () => {
    suite.test('queues.pause-resume-shape', 'pause and resume answer the protocol shape and are idempotent', async (t) => {
      const queue = t.queue();
      const paused = await t.api.pauseQueue(queue);
      expect(paused.queue).toMatchObject({ name: queue, paused: true, status: 'paused', paused_at: t.iso() });
      expect((await t.api.pauseQueue(queue)).queue).toMatchObject({ name: queue, paused: true, status: 'paused' });
      const resumed = await t.api.resumeQueue(queue);
      expect(resumed.queue).toMatchObject({ name: queue, paused: false, status: 'active', resumed_at: t.iso() });
      expect((await t.api.resumeQueue(queue)).queue).toMatchObject({ paused: false, status: 'active' });
    });

    suite.test('queues.pause-semantics', 'a paused queue keeps accepting, promoting and finishing; FETCH gets nothing until resume', async (t) => {
      const queue = t.queue();
      const running = await INTO.active(t, queue);
      const waiting = await t.push(queue, { options: { priority: 1 } });
      const later = await t.push(queue, { options: { scheduled_at: '+PT1S' } });
      await t.api.pauseQueue(queue);
      const accepted = await t.push(queue);
      expect(accepted.state).toBe('available');
      await t.advance(1_500);
      await t.expectReady(later.id);
      expect(await t.claimIds([queue], 10)).toEqual([]);
      await t.api.ack({ job_id: running.id });
      await t.expectState(running.id, 'completed');
      await t.api.resumeQueue(queue);
      expect(await t.claimIds([queue], 10)).toEqual([waiting.id, accepted.id, later.id]);
    });

    suite.test('queues.pause-persisted', 'the pause flag is persisted: the queue lists as paused', async (t) => {
      const queue = t.queue();
      await t.api.pauseQueue(queue);
      expect(await findQueue(t.api, queue)).toMatchObject({ name: queue, status: 'paused', paused: true });
      expect(await t.api.queueStats(queue)).toMatchObject({ paused: true, queue: { paused: true } });
      await t.api.resumeQueue(queue);
      expect(await findQueue(t.api, queue)).toMatchObject({ status: 'active', paused: false });
    });

    suite.test('queues.list', 'every queue ever enqueued to is listed, with pagination', async (t) => {
      const queue = t.queue();
      await t.push(queue);
      expect(await findQueue(t.api, queue)).toMatchObject({ name: queue, status: 'active', paused: false });
      const page = await t.api.listQueues({ limit: 1 });
      expect(page.queues.length).toBeLessThanOrEqual(1);
      expect(page.pagination).toMatchObject({ limit: 1, offset: 0 });
      expect(page.pagination.total).toBeGreaterThanOrEqual(1);
      if (page.pagination.has_more) expect(page.pagination.next_cursor).toBeTruthy();
    });

    suite.test('queues.default-exists', 'the default queue always exists', async (t) => {
      expect(await findQueue(t.api, 'default')).toMatchObject({ name: 'default' });
    });

    suite.test('queues.stats', 'stats are exact per-state counts, in three mirrored shapes', async (t) => {
      const queue = t.queue();
      // States reached through a claim first, so each claim takes the job just pushed, not an earlier one.
      const withoutClaim = (s: JobState) => s === 'cancelled' || canTransition(null, s, 'push');
      const order = [...JOB_STATES].sort((a, b) => Number(withoutClaim(a)) - Number(withoutClaim(b)));
      for (const state of order) await INTO[state](t, queue);
      await t.push(queue);
      await t.dispatch.settle();
      const stats = await t.api.queueStats(queue);
      const counts = t.dispatch.counts({ scheduled: 1, available: 2, pending: 1, active: 1, completed: 1, retryable: 1, cancelled: 1, discarded: 1 }, queue);
      expect(stats).toMatchObject({ name: queue, paused: false, ...counts, computed_at: t.iso() });
      expect(stats.queue).toMatchObject({ name: queue, paused: false, ...counts });
      expect(stats.stats).toMatchObject({ queue, depth: 1 + 2 + 1 + 1, ...counts });
    });

    suite.test('queues.stats-unknown', 'stats of a never-used valid queue name are all zeros', async (t) => {
      const stats = await t.api.queueStats(t.queue());
      for (const state of JOB_STATES) expect(stats[state]).toBe(0);
      expect(stats.stats.depth).toBe(0);
    });

    suite.test('queues.invalid-name', 'an invalid queue name → 400 invalid_request', async (t) => {
      await expectOjsError(t.api.queueStats('Not A Queue'), { code: 'invalid_request' });
      await expectOjsError(t.api.pauseQueue('-bad'), { code: 'invalid_request' });
    });
  });
}
