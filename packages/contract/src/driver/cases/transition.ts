/** `jobTransition`: the generic guarded compare-and-set (the engine's seldom moves), its guards, and what it writes. */
import { expect } from 'vitest';
import type { TransitionOp } from '@ojskit/core/driver';
import { allowedFrom } from '@ojskit/core/lifecycle';
import { DRIVER_JOB_TYPE, iso, T0, type DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';

/** A job claimed by `w1` at T0 (attempt 1). */
async function activeJob(t: DriverCaseContext): Promise<{ id: string; queue: string }> {
  const queue = t.queue();
  const s = t.job(queue);
  await t.insert([s]);
  await t.claim([queue], 1);
  return { id: s.job.id, queue };
}

/** An ACK as the engine sends it. */
function ack(id: string, over: Partial<TransitionOp> = {}): TransitionOp {
  return {
    id,
    from: allowedFrom('completed', 'ack'),
    to: 'completed',
    set: { completed_at: iso(T0 + 1), result: { ok: true } },
    unset: ['worker_id'],
    x: { finishedAt: T0 + 1, visibleUntil: null, timeoutAt: null },
    ...over,
  };
}

export function registerTransitionCases(suite: DriverSuite): void {
  suite.group('jobTransition', () => {
    suite.test(
      'transition.applies-set-unset-x',
      'writes set, removes unset and null x fields, reports the previous state, and moves the job between indexes',
      async (t) => {
        const { id, queue } = await activeJob(t);
        const result = await t.driver.jobTransition(ack(id));
        expect(result).toMatchObject({ ok: true, from: 'active', job: { id, state: 'completed', result: { ok: true }, completed_at: iso(T0 + 1) } });
        const stored = await t.stored(id);
        expect(stored.job).toEqual((result as { job: unknown }).job);
        expect(stored.job.worker_id).toBeUndefined();
        expect(stored.x.visibleUntil).toBeUndefined();
        expect(stored.x.timeoutAt).toBeUndefined();
        expect(stored.x.finishedAt).toBe(T0 + 1);
        expect(await t.driver.jobCounts({ queue })).toMatchObject({ active: 0, completed: 1 });
        expect(await t.driver.jobListOverdue({ now: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]);
      },
    );

    suite.test(
      'transition.refused-outside-from',
      'refuses when the current state is not in from, returning the current state and job, and changes nothing',
      async (t) => {
        const { id } = await activeJob(t);
        expect((await t.driver.jobTransition(ack(id))).ok).toBe(true);
        const before = await t.stored(id);
        const again = await t.driver.jobTransition(ack(id, { set: { result: 'second' } }));
        expect(again).toMatchObject({ ok: false, state: 'completed', job: { id, state: 'completed' } });
        expect(await t.stored(id)).toEqual(before);
      },
    );

    suite.test('transition.missing-job', 'reports an unknown id with state null', async (t) => {
      expect(await t.driver.jobTransition(ack('00000000-0000-7000-8000-000000000000'))).toEqual({ ok: false, state: null });
    });

    suite.test('transition.expect-guards', 'refuses unless each given guard holds: attempt, workerId, visibleUntil, deadLetter', async (t) => {
      const { id } = await activeJob(t);
      const visibleUntil = (await t.stored(id)).x.visibleUntil!;
      for (const expectation of [{ attempt: 2 }, { attempt: 0 }, { workerId: 'w2' }, { visibleUntil: visibleUntil + 1 }, { deadLetter: true }]) {
        expect(await t.driver.jobTransition(ack(id, { expect: expectation })), JSON.stringify(expectation)).toMatchObject({ ok: false, state: 'active' });
        expect(await t.driver.jobTransition(ack(id, { expect: expectation, returning: 'summary' })), JSON.stringify(expectation)).toMatchObject({
          ok: false,
          state: 'active',
        });
      }
      expect(await t.state(id)).toBe('active');
      const ok = await t.driver.jobTransition(ack(id, { expect: { attempt: 1, workerId: 'w1', visibleUntil, deadLetter: false } }));
      expect(ok).toMatchObject({ ok: true, from: 'active' });
    });

    suite.test('transition.worker-guard-without-worker', 'skips the workerId guard when the job has no worker_id', async (t) => {
      const q = t.heldQueue();
      const s = t.job(q);
      await t.insert([s]);
      expect(
        await t.driver.jobTransition({
          id: s.job.id,
          from: ['available'],
          to: 'cancelled',
          expect: { workerId: 'anyone' },
          set: { cancelled_at: iso(T0) },
          x: { finishedAt: T0 },
        }),
      ).toMatchObject({ ok: true });
    });

    suite.test('transition.in-place', 'updates a job in place when from includes its state, returning a summary on request', async (t) => {
      const { id, queue } = await activeJob(t);
      const progress = { progress: 0.5, message: 'half', data: { n: 1 }, updated_at: iso(T0) };
      const result = await t.driver.jobTransition({ id, from: ['active'], to: 'active', x: { progress }, returning: 'summary' });
      // a summary may carry started_at (JobSummary): matched, not equalled
      expect(result).toMatchObject({ ok: true, from: 'active', summary: { id, type: DRIVER_JOB_TYPE, queue, state: 'active', attempt: 1 } });
      expect((await t.stored(id)).x.progress).toEqual(progress);
      expect(await t.driver.jobCounts({ queue })).toMatchObject({ active: 1 });
    });

    suite.test(
      'transition.in-place-reindexes',
      'an in-place update that changes a due time, an expiry or a deadline moves the job in that index',
      async (t) => {
        const q = t.queue();
        const waiting = t.job(q, { state: 'scheduled' });
        const expiring = t.job(q);
        const running = t.job(q);
        await t.insert([waiting, expiring]);
        // With a dispatch log, `expiring` is delivered (pending) once settled: updated in place there.
        await t.dispatch.settle();
        const ready = t.dispatch.ready;
        // due in an hour → due now: the next claim promotes it
        expect(
          await t.driver.jobTransition({ id: waiting.job.id, from: ['scheduled'], to: 'scheduled', set: { scheduled_at: iso(T0 + 5) }, x: { dueAt: T0 + 5 } }),
        ).toMatchObject({ ok: true });
        // no expiry → expired at T0 + 1
        expect(await t.driver.jobTransition({ id: expiring.job.id, from: [ready], to: ready, x: { expiresAt: T0 + 1 } })).toMatchObject({
          ok: true,
        });
        const claimed = await t.claim([q], 5, { now: T0 + 5 });
        expect(claimed.promoted.map((p) => p.id)).toEqual([waiting.job.id]);
        expect(claimed.expired.map((j) => j.id)).toEqual([expiring.job.id]);
        expect(claimed.jobs.map((j) => j.id)).toEqual([waiting.job.id]);
        // a deadline moved earlier makes an active job overdue sooner
        await t.insert([running]);
        await t.claim([q], 1);
        expect(await t.driver.jobListOverdue({ now: T0 + 100, limit: 10 })).toEqual([]);
        expect(await t.driver.jobTransition({ id: running.job.id, from: ['active'], to: 'active', x: { visibleUntil: T0 + 50 } })).toMatchObject({ ok: true });
        expect((await t.driver.jobListOverdue({ now: T0 + 100, limit: 10 })).map((s) => s.job.id)).toEqual([running.job.id]);
      },
    );

    suite.test('transition.moves-queue', 'a transition that sets queue moves the job, with its indexes and counts, to that queue', async (t) => {
      const [from, to] = [t.heldQueue(), t.queue()];
      const s = t.job(from);
      await t.insert([s]);
      expect(await t.driver.jobTransition({ id: s.job.id, from: ['available'], to: 'available', set: { queue: to } })).toMatchObject({
        ok: true,
        job: { queue: to },
      });
      expect(await t.driver.jobCounts({ queue: from })).toMatchObject({ available: 0 });
      expect(await t.driver.jobCounts({ queue: to })).toMatchObject({ available: 1 });
      await t.dispatch.release(from);
      expect(await t.claimIds([from], 1)).toEqual([]);
      expect(await t.claimIds([to], 1)).toEqual([s.job.id]);
      await t.driver.jobTransition({
        id: s.job.id,
        from: ['active'],
        to: 'discarded',
        set: { discarded_at: iso(T0) },
        x: { finishedAt: T0, deadLetter: true },
      });
      const third = t.queue();
      expect(
        await t.driver.jobTransition({ id: s.job.id, from: ['discarded'], to: 'available', set: { queue: third }, x: { deadLetter: null, finishedAt: null } }),
      ).toMatchObject({ ok: true, from: 'discarded' });
      expect(await t.claimIds([to], 1)).toEqual([]);
      expect(await t.claimIds([third], 1)).toEqual([s.job.id]);
    });

    suite.test('transition.dead-letter', 'moves a job into the dead-letter queue and out of it again (listing, pruning and claiming follow)', async (t) => {
      const { id, queue } = await activeJob(t);
      await t.driver.jobTransition({
        id,
        from: ['active'],
        to: 'discarded',
        set: { discarded_at: iso(T0) },
        unset: ['worker_id'],
        x: { deadLetter: true, finishedAt: T0, visibleUntil: null, timeoutAt: null },
      });
      expect((await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).jobs.map((j) => j.id)).toEqual([id]);
      expect(await t.driver.jobTransition({ id, from: ['discarded'], to: 'available', expect: { deadLetter: false } })).toMatchObject({
        ok: false,
        state: 'discarded',
      });
      const revived = await t.driver.jobTransition({
        id,
        from: ['discarded'],
        to: 'available',
        expect: { deadLetter: true },
        unset: ['discarded_at'],
        x: { deadLetter: null, finishedAt: null },
      });
      expect(revived).toMatchObject({ ok: true, from: 'discarded', job: { state: 'available' } });
      expect(await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).toEqual({ jobs: [], total: 0 });
      expect(await t.driver.jobPrune({ before: Number.MAX_SAFE_INTEGER, limit: 10, deadLetter: true })).toBe(0);
      expect((await t.claim([queue], 1)).jobs.map((j) => [j.id, j.attempt])).toEqual([[id, 2]]);
    });
  });
}
