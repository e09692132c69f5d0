/** `jobClaim`: order (priority, then FIFO by entry into `available`), queues, paused queues, promotion and expiry on the way. */
import { expect } from 'vitest';
import { iso, T0, TIMEOUT_MS, VISIBILITY_MS } from '../context.js';
import type { DriverSuite } from '../harness.js';

export function registerClaimCases(suite: DriverSuite): void {
  suite.group('jobClaim', () => {
    suite.test('claim.priority-then-fifo', 'takes higher priority first (negative last), then first in, first out', async (t) => {
      const q = t.queue();
      const [low1, high, neg, low2] = [t.job(q), t.job(q, { priority: 5 }), t.job(q, { priority: -3 }), t.job(q)];
      await t.insert([low1, high, neg, low2]);
      expect(await t.claimIds([q], 10)).toEqual([high.job.id, low1.job.id, low2.job.id, neg.job.id]);
      expect(await t.claimIds([q], 10)).toEqual([]);
    });

    suite.test(
      'claim.fifo-kept-through-updates',
      'a large claim keeps FIFO within a priority after in-place updates, and a job whose priority changes in place moves to its new priority',
      async (t) => {
        const q = t.heldQueue();
        const jobs = Array.from({ length: 60 }, (_, i) => t.job(q, { priority: i % 3 === 0 ? 1 : 0 }));
        await t.insert(jobs);
        // In-place rewrites (same state): a store that orders by physical position or re-stamps the sequence fails here.
        const touched = await Promise.all(
          jobs.slice(0, 30).map((j) => t.driver.jobTransition({ id: j.job.id, from: ['available'], to: 'available', set: { tags: ['moved'] } })),
        );
        expect(touched.every((r) => r.ok)).toBe(true);
        const last = jobs[59]!;
        expect(await t.driver.jobTransition({ id: last.job.id, from: ['available'], to: 'available', set: { priority: 7 } })).toMatchObject({ ok: true });
        const expected = [last, ...jobs.filter((j) => j !== last && j.job.priority === 1), ...jobs.filter((j) => j !== last && j.job.priority === 0)].map(
          (j) => j.job.id,
        );
        await t.dispatch.release(q);
        expect(await t.claimIds([q], 60)).toEqual(expected);
      },
    );

    suite.test(
      'claim.requeued-goes-behind',
      'a job that re-enters available takes a new place at the back, behind jobs inserted before it came back',
      async (t) => {
        const q = t.queue();
        const [a, b] = [t.job(q), t.job(q)];
        await t.insert([a, b]);
        expect(await t.claimIds([q], 1)).toEqual([a.job.id]);
        const back = await t.driver.jobTransition({
          id: a.job.id,
          from: ['active'],
          to: 'available',
          unset: ['worker_id', 'started_at'],
          x: { visibleUntil: null, timeoutAt: null },
        });
        expect(back).toMatchObject({ ok: true, from: 'active', job: { state: 'available' } });
        expect((back as { job: Record<string, unknown> }).job['worker_id']).toBeUndefined();
        const c = t.job(q);
        await t.insert([c]);
        const rest = (await t.claim([q], 5)).jobs;
        expect(rest.map((j) => j.id)).toEqual([b.job.id, a.job.id, c.job.id]);
        expect(rest.map((j) => j.attempt)).toEqual([1, 2, 1]);
      },
    );

    suite.test('claim.queue-order-and-limit', 'fills from the queues in the order given, whatever the priorities across them, up to the limit', async (t) => {
      const [qa, qb] = [t.queue(), t.queue()];
      const a = [t.job(qa), t.job(qa)];
      const b = [t.job(qb, { priority: 100 }), t.job(qb)];
      await t.insert([...b, ...a]);
      expect(await t.claimIds([qa, qb], 3)).toEqual([a[0]!.job.id, a[1]!.job.id, b[0]!.job.id]);
      await t.expectCounts(qb, { available: 1, active: 1 });
      expect(await t.claim([t.queue()], 3)).toEqual({ jobs: [], promoted: [], expired: [] });
    });

    suite.test(
      'claim.sets-claim-fields',
      'a claimed job is active with attempt + 1, started_at, worker_id, its deadlines, and no next_attempt_at or progress',
      async (t) => {
        const q = t.queue();
        const s = t.job(q, { attempt: 1, next_attempt_at: iso(T0) }, { progress: { progress: 0.5, message: 'half', data: null, updated_at: iso(T0) } });
        await t.insert([s]);
        const now = T0 + 100;
        const { jobs, promoted, expired } = await t.claim([q], 10, { now, workerId: 'w9' });
        expect(promoted).toEqual([]);
        expect(expired).toEqual([]);
        expect(jobs).toHaveLength(1);
        expect(jobs[0]).toMatchObject({ id: s.job.id, state: 'active', attempt: 2, started_at: iso(now), worker_id: 'w9' });
        expect(jobs[0]).not.toHaveProperty('next_attempt_at');
        const stored = await t.stored(s.job.id);
        expect(stored.job).toEqual(jobs[0]);
        expect(stored.x).toMatchObject({ claimVisibilityMs: VISIBILITY_MS, visibleUntil: now + VISIBILITY_MS, timeoutAt: now + TIMEOUT_MS });
        expect(stored.x.progress).toBeUndefined();
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ available: 0, active: 1 });
      },
    );

    suite.test('claim.explicit-visibility', "a claim's visibilityMs sets this claim's reservation instead of the job's", async (t) => {
      const q = t.queue();
      const s = t.job(q);
      await t.insert([s]);
      await t.claim([q], 1, { visibilityMs: 5 });
      expect((await t.stored(s.job.id)).x).toMatchObject({ claimVisibilityMs: 5, visibleUntil: T0 + 5, timeoutAt: T0 + TIMEOUT_MS });
    });

    suite.test('claim.skips-paused-queues', 'skips a paused queue (and fills from the next), and takes from it again once resumed', async (t) => {
      const [qa, qb] = [t.queue(), t.queue()];
      const [a, b] = [t.job(qa), t.job(qb)];
      await t.insert([a, b]);
      expect(await t.driver.queueSetPaused({ name: qa, paused: true, nowIso: iso(T0 + 1) })).toMatchObject({ name: qa, paused: true });
      expect(await t.claimIds([qa, qb], 5)).toEqual([b.job.id]);
      expect(await t.claimIds([qa], 5)).toEqual([]);
      await t.driver.queueSetPaused({ name: qa, paused: false, nowIso: iso(T0 + 2) });
      expect(await t.claimIds([qa, qb], 5)).toEqual([a.job.id]);
    });

    suite.test(
      'claim.promotes-due',
      'promotes due scheduled and retryable jobs on the way (reported with from, enqueued_at = now) and claims them in the same call',
      async (t) => {
        const q = t.queue();
        const ready = t.job(q);
        const dueLate = t.job(q, { state: 'scheduled', scheduled_at: iso(T0 + 20) }, { dueAt: T0 + 20 });
        const dueEarly = t.job(q, { state: 'retryable', next_attempt_at: iso(T0 + 10) }, { dueAt: T0 + 10 });
        const future = t.job(q, { state: 'scheduled' });
        await t.insert([ready, dueLate, dueEarly, future]);
        expect(await t.claimIds([q], 10, { now: T0 + 5 })).toEqual([ready.job.id]);
        const result = await t.claim([q], 10, { now: T0 + 20 });
        // Both became available at the same instant, so their FIFO order between them is not specified.
        const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));
        expect(byId(result.promoted).map((p) => [p.id, p.state, p.from, p.queue, p.type])).toEqual(
          byId([dueEarly.job, dueLate.job]).map((j) => [j.id, 'available', j.state, q, j.type]),
        );
        expect(byId(result.jobs).map((j) => [j.id, j.state, j.enqueued_at, j.attempt])).toEqual(
          byId([dueEarly.job, dueLate.job]).map((j) => [j.id, 'active', iso(T0 + 20), j.attempt + 1]),
        );
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ scheduled: 1, retryable: 0, active: 3 });
      },
    );

    suite.test(
      'claim.expires-instead-of-claiming',
      'discards jobs past x.expiresAt (discarded_at, expired_at, finishedAt) and reports them, still filling the claim; an expiry equal to now is still claimable',
      async (t) => {
        const q = t.queue();
        const stale = t.job(q, { priority: 9 }, { expiresAt: T0 + 5 });
        const staleDue = t.job(q, { state: 'scheduled', scheduled_at: iso(T0 + 1) }, { dueAt: T0 + 1, expiresAt: T0 + 5 });
        const edge = t.job(q, {}, { expiresAt: T0 + 6 });
        const fine = t.job(q);
        await t.insert([stale, staleDue, edge, fine]);
        const now = T0 + 6;
        const result = await t.claim([q], 2, { now });
        expect(result.jobs.map((j) => j.id)).toEqual([edge.job.id, fine.job.id]);
        expect(result.expired.map((j) => [j.id, j.state, j.discarded_at, j.expired_at]).sort()).toEqual(
          [
            [stale.job.id, 'discarded', iso(now), iso(now)],
            [staleDue.job.id, 'discarded', iso(now), iso(now)],
          ].sort(),
        );
        expect(result.promoted.map((p) => p.id)).not.toContain(stale.job.id);
        for (const s of [stale, staleDue]) expect(await t.stored(s.job.id)).toMatchObject({ job: { state: 'discarded' }, x: { finishedAt: now } });
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ discarded: 2, active: 2, scheduled: 0, available: 0 });
      },
    );
  });
}
