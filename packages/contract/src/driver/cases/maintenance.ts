/** Heartbeats and the services' primitives: promote, expire, overdue listing, prune; and reads: list, counts, delete. */
import { expect } from 'vitest';
import { DRIVER_JOB_TYPE, iso, T0, VISIBILITY_MS } from '../context.js';
import type { DriverSuite } from '../harness.js';

export function registerMaintenanceCases(suite: DriverSuite): void {
  suite.group('jobHeartbeat', () => {
    suite.test(
      'heartbeat.extends-holder',
      "extends the active jobs the worker holds by the claim's reservation and reports every id's state (null when unknown)",
      async (t) => {
        const q = t.queue();
        const [a, b, c] = [t.job(q), t.job(q), t.job(q)];
        await t.insert([a, b]);
        await t.claim([q], 2, { visibilityMs: 1_000 });
        await t.insert([c]);
        const missing = '00000000-0000-7000-8000-000000000000';
        const beat = await t.driver.jobHeartbeat({ ids: [a.job.id, c.job.id, missing], now: T0 + 500, workerId: 'w1' });
        expect(beat.states).toEqual({ [a.job.id]: 'active', [c.job.id]: 'available', [missing]: null });
        // a summary may carry started_at (JobSummary): matched, not equalled
        expect(beat.extended).toMatchObject([
          { id: a.job.id, type: DRIVER_JOB_TYPE, queue: q, state: 'active', attempt: 1, visibleUntil: T0 + 1_500, worker_id: 'w1' },
        ]);
        expect((await t.stored(a.job.id)).x.visibleUntil).toBe(T0 + 1_500);
        // b was not extended: it is the overdue one now
        expect((await t.driver.jobListOverdue({ now: T0 + 1_200, limit: 10 })).map((s) => s.job.id)).toEqual([b.job.id]);
      },
    );

    suite.test(
      'heartbeat.other-worker-and-explicit-extension',
      'refuses a worker that does not hold the job, and extends by an explicit visibilityMs when given',
      async (t) => {
        const q = t.queue();
        const s = t.job(q);
        await t.insert([s]);
        await t.claim([q], 1);
        expect(await t.driver.jobHeartbeat({ ids: [s.job.id], now: T0 + 10, workerId: 'someone-else' })).toEqual({
          extended: [],
          states: { [s.job.id]: 'active' },
        });
        expect((await t.stored(s.job.id)).x.visibleUntil).toBe(T0 + VISIBILITY_MS);
        const explicit = await t.driver.jobHeartbeat({ ids: [s.job.id], now: T0 + 10, visibilityMs: 7, workerId: 'w1' });
        expect(explicit.extended.map((e) => [e.id, e.visibleUntil])).toEqual([[s.job.id, T0 + 17]]);
        const anyone = await t.driver.jobHeartbeat({ ids: [s.job.id], now: T0 + 20 });
        expect(anyone.extended.map((e) => [e.id, e.visibleUntil])).toEqual([[s.job.id, T0 + 20 + VISIBILITY_MS]]);
      },
    );
  });

  suite.group('jobPromote, jobExpire, jobListOverdue, jobPrune', () => {
    suite.test(
      'promote.due-across-queues',
      'promotes due scheduled and retryable jobs of every queue (enqueued_at = now, reported with from), discards the expired ones, and moves at most `limit` jobs a call',
      async (t) => {
        const [qa, qb] = [t.queue(), t.queue()];
        const first = t.job(qa, { state: 'scheduled', scheduled_at: iso(T0 + 1) }, { dueAt: T0 + 1 });
        const second = t.job(qb, { state: 'retryable', next_attempt_at: iso(T0 + 2) }, { dueAt: T0 + 2 });
        const doomed = t.job(qb, { state: 'scheduled', scheduled_at: iso(T0 + 3) }, { dueAt: T0 + 3, expiresAt: T0 + 4 });
        const future = t.job(qa, { state: 'scheduled', scheduled_at: iso(T0 + 99) }, { dueAt: T0 + 99 });
        await t.insert([future, doomed, second, first]);
        const now = T0 + 10;
        const promoted: Array<[string, string, string | undefined]> = [];
        const expired: Array<[string, string, string | undefined, string | undefined]> = [];
        for (let call = 0; call < 4; call++) {
          const moved = await t.driver.jobPromote({ now, nowIso: iso(now), limit: 2 });
          expect(moved.promoted.length + moved.expired.length, `call ${call}`).toBeLessThanOrEqual(2);
          if (call === 0) expect(moved.promoted.length + moved.expired.length).toBeGreaterThan(0);
          promoted.push(...moved.promoted.map((p) => [p.id, p.state, p.from] as [string, string, string | undefined]));
          expired.push(...moved.expired.map((j) => [j.id, j.state, j.expired_at, j.discarded_at] as [string, string, string | undefined, string | undefined]));
        }
        expect(promoted.sort()).toEqual(
          [
            [first.job.id, 'available', 'scheduled'],
            [second.job.id, 'available', 'retryable'],
          ].sort(),
        );
        expect(expired).toEqual([[doomed.job.id, 'discarded', iso(now), iso(now)]]);
        await t.expectReady(first.job.id);
        expect((await t.stored(first.job.id)).job).toMatchObject({ enqueued_at: iso(now) });
        expect((await t.stored(doomed.job.id)).x.finishedAt).toBe(now);
        await t.expectCounts(undefined, { scheduled: 1, retryable: 0, available: 2, discarded: 1 });
        expect(await t.claimIds([qb, qa], 5, { now })).toEqual([second.job.id, first.job.id]);
      },
    );

    suite.test(
      'expire.waiting-jobs',
      'discards scheduled, available and retryable jobs past x.expiresAt, earliest first up to the limit, never active or pending ones',
      async (t) => {
        const q = t.heldQueue();
        const running = t.job(q, { state: 'active' }, { expiresAt: T0 + 1 });
        const late = t.job(q, {}, { expiresAt: T0 + 20 });
        const early = t.job(q, { state: 'scheduled' }, { expiresAt: T0 + 10 });
        const retry = t.job(q, { state: 'retryable' }, { expiresAt: T0 + 15 });
        const keep = t.job(q, {}, { expiresAt: T0 + 50 });
        const waiting = t.job(q, { state: 'pending' }, { expiresAt: T0 });
        await t.insert([running, late, early, retry, keep, waiting]);
        const now = T0 + 30;
        const first = await t.driver.jobExpire({ now, nowIso: iso(now), limit: 2 });
        expect(first.map((j) => j.id)).toEqual([early.job.id, retry.job.id]);
        expect(first[0]).toMatchObject({ state: 'discarded', expired_at: iso(now), discarded_at: iso(now) });
        expect((await t.stored(early.job.id)).x.finishedAt).toBe(now);
        expect((await t.driver.jobExpire({ now, nowIso: iso(now), limit: 10 })).map((j) => j.id)).toEqual([late.job.id]);
        expect(await t.state(running.job.id)).toBe('active');
        expect(await t.state(waiting.job.id)).toBe('pending');
        expect(await t.state(keep.job.id)).toBe('available');
      },
    );

    suite.test(
      'overdue.by-deadline',
      'lists active jobs past min(visibleUntil, timeoutAt), oldest deadline first, up to the limit, without changing them',
      async (t) => {
        const q = t.queue();
        const slow = t.job(q, {}, { visibilityMs: 100, timeoutMs: 10_000 });
        const timed = t.job(q, {}, { visibilityMs: 10_000, timeoutMs: 50 });
        const fine = t.job(q, {}, { visibilityMs: 500, timeoutMs: 500 });
        await t.insert([slow, timed, fine]);
        await t.claim([q], 3);
        expect(await t.driver.jobListOverdue({ now: T0 + 49, limit: 10 })).toEqual([]);
        const overdue = await t.driver.jobListOverdue({ now: T0 + 100, limit: 10 });
        expect(overdue.map((s) => s.job.id)).toEqual([timed.job.id, slow.job.id]);
        expect(overdue[0]).toEqual(await t.stored(timed.job.id));
        expect((await t.driver.jobListOverdue({ now: T0 + 100, limit: 1 })).map((s) => s.job.id)).toEqual([timed.job.id]);
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ active: 3 });
      },
    );

    suite.test(
      'prune.terminal-before',
      'deletes terminal jobs finished before `before`, oldest first up to the limit, dead-lettered ones only when asked',
      async (t) => {
        const q = t.heldQueue();
        const finished = (state: 'completed' | 'cancelled' | 'discarded', at: number, deadLetter = false) =>
          t.job(q, { state }, { finishedAt: at, ...(deadLetter ? { deadLetter } : {}) });
        const jobs = [
          finished('completed', T0 + 3),
          finished('cancelled', T0 + 1),
          finished('discarded', T0 + 2, true),
          finished('completed', T0 + 10),
          finished('discarded', T0 + 4),
          t.job(q),
        ];
        await t.insert(jobs);
        expect(await t.driver.jobPrune({ before: T0 + 5, limit: 1 })).toBe(1);
        expect(await t.driver.jobGet(jobs[1]!.job.id)).toBeNull();
        expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10 })).toBe(2);
        expect(await t.driver.jobGet(jobs[0]!.job.id)).toBeNull();
        expect(await t.driver.jobGet(jobs[4]!.job.id)).toBeNull();
        expect(await t.driver.jobGet(jobs[2]!.job.id)).not.toBeNull();
        expect(await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).toEqual({ jobs: [jobs[2]!.job], total: 1 });
        expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, deadLetter: true })).toBe(1);
        expect(await t.driver.jobGet(jobs[2]!.job.id)).toBeNull();
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ completed: 1, cancelled: 0, discarded: 0, available: 1 });
      },
    );

    suite.test('prune.filters', 'a prune narrowed by state, by queue, leaving out queues, or to the dead letters deletes only what matches', async (t) => {
      const qa = t.queue();
      const qb = t.queue();
      const finished = (q: string, state: 'completed' | 'cancelled' | 'discarded', deadLetter = false) =>
        t.job(q, { state }, { finishedAt: T0 + 1, ...(deadLetter ? { deadLetter } : {}) });
      const [aDone, aCancelled, aDiscarded, aDead, bDone, bCancelled] = [
        finished(qa, 'completed'),
        finished(qa, 'cancelled'),
        finished(qa, 'discarded'),
        finished(qa, 'discarded', true),
        finished(qb, 'completed'),
        finished(qb, 'cancelled'),
      ];
      await t.insert([aDone!, aCancelled!, aDiscarded!, aDead!, bDone!, bCancelled!]);
      const gone = async (...jobs: Array<typeof aDone>) => {
        for (const j of jobs) expect(await t.driver.jobGet(j!.job.id), j!.job.id).toBeNull();
      };
      expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, state: 'completed', queue: qa })).toBe(1);
      await gone(aDone);
      expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, state: 'cancelled', exceptQueues: [qa] })).toBe(1);
      await gone(bCancelled);
      expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, deadLetter: 'only' })).toBe(1);
      await gone(aDead);
      expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, state: 'discarded' })).toBe(1);
      await gone(aDiscarded);
      expect(await t.driver.jobPrune({ before: T0 + 1, limit: 10, queue: qb })).toBe(0);
      expect(await t.driver.jobPrune({ before: T0 + 5, limit: 10, queue: qb })).toBe(1);
      await gone(bDone);
      expect(await t.driver.jobCounts({ queue: qa })).toMatchObject({ completed: 0, cancelled: 1, discarded: 0 });
      expect(await t.driver.jobCounts({ queue: qb })).toMatchObject({ completed: 0, cancelled: 0, discarded: 0 });
    });

    suite.test('prune.frees-unique-keys', "a pruned job's unique key no longer blocks, and the pruned job is gone from every listing", async (t) => {
      const q = t.queue();
      const key = t.name();
      const unique = { uniqueKey: key, uniqueStates: ['completed' as const], uniqueOnConflict: 'reject' as const };
      const done = t.job(q, { state: 'completed' }, { ...unique, finishedAt: T0 });
      await t.insert([done]);
      expect((await t.driver.jobInsert({ jobs: [t.job(q, {}, unique)], now: T0, nowIso: iso(T0) })).ok).toBe(false);
      expect(await t.driver.jobPrune({ before: T0 + 1, limit: 10 })).toBe(1);
      expect(await t.driver.jobList({ queue: q, limit: 10, offset: 0 })).toEqual({ jobs: [], total: 0 });
      expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ completed: 0 });
      expect((await t.driver.jobInsert({ jobs: [t.job(q, {}, unique)], now: T0, nowIso: iso(T0) })).ok).toBe(true);
    });
  });

  suite.group('jobList, jobCounts, jobDelete', () => {
    suite.test(
      'list.newest-first',
      'lists newest first (by id) with queue, state, type and dead-letter filters, paging, and a total of every match',
      async (t) => {
        // Held: the state filter reads `available`, which a dispatch log would move on to `pending` meanwhile.
        const [q, z] = [t.heldQueue(), t.queue()];
        const jobs = [t.job(q), t.job(q, { type: 'other' }), t.job(z), t.job(q), t.job(q, { state: 'discarded' }, { deadLetter: true })];
        await t.insert(jobs);
        const ids = (page: { jobs: Array<{ id: string }> }) => page.jobs.map((j) => j.id);
        const all = await t.driver.jobList({ limit: 2, offset: 1 });
        expect(all.total).toBe(5);
        expect(ids(all)).toEqual([jobs[3]!.job.id, jobs[2]!.job.id]);
        expect(await t.driver.jobList({ queue: q, limit: 2, offset: 10 })).toEqual({ jobs: [], total: 4 });
        expect(ids(await t.driver.jobList({ queue: q, type: jobs[0]!.job.type, state: 'available', limit: 10, offset: 0 }))).toEqual([
          jobs[3]!.job.id,
          jobs[0]!.job.id,
        ]);
        expect((await t.driver.jobList({ deadLetter: false, limit: 10, offset: 0 })).total).toBe(4);
        expect(await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).toEqual({ jobs: [jobs[4]!.job], total: 1 });
        expect((await t.driver.jobList({ state: 'discarded', limit: 10, offset: 0 })).total).toBe(1);
      },
    );

    suite.test('counts.per-queue-and-all', 'counts every state, per queue and over all queues, with zero for the empty ones', async (t) => {
      const [qa, qb] = [t.heldQueue(), t.queue()];
      await t.insert([t.job(qa), t.job(qa, { state: 'scheduled' }), t.job(qb, { state: 'pending' }), t.job(qb, { state: 'completed' })]);
      const zero = { scheduled: 0, available: 0, pending: 0, active: 0, completed: 0, retryable: 0, cancelled: 0, discarded: 0 };
      expect(await t.driver.jobCounts({ queue: qa })).toEqual({ ...zero, available: 1, scheduled: 1 });
      expect(await t.driver.jobCounts({ queue: qb })).toEqual({ ...zero, pending: 1, completed: 1 });
      expect(await t.driver.jobCounts({ queue: t.queue() })).toEqual(zero);
      expect(await t.driver.jobCounts({})).toEqual({ ...zero, available: 1, scheduled: 1, pending: 1, completed: 1 });
    });

    suite.test('delete.guards', 'deletes a job only while its guards hold, returning it; the job is then gone from every index', async (t) => {
      const q = t.heldQueue();
      const s = t.job(q);
      await t.insert([s]);
      expect(await t.driver.jobDelete({ id: s.job.id, expect: { states: ['completed'] } })).toBeNull();
      expect(await t.driver.jobDelete({ id: s.job.id, expect: { deadLetter: true } })).toBeNull();
      expect(await t.driver.jobDelete({ id: s.job.id, expect: { states: ['available'], deadLetter: false } })).toEqual(s.job);
      expect(await t.driver.jobDelete({ id: s.job.id })).toBeNull();
      expect(await t.driver.jobGet(s.job.id)).toBeNull();
      expect((await t.driver.jobCounts({ queue: q })).available).toBe(0);
      await t.dispatch.release(q);
      expect(await t.claimIds([q], 1)).toEqual([]);
      expect((await t.driver.jobList({ queue: q, limit: 10, offset: 0 })).total).toBe(0);
    });
  });
}
