import { describe, expect, it } from 'vitest';
import { MemoryDriver } from '../src/index.js';
import { at, iso, scheduled, stored, T0 } from './fixtures.js';

const claimAll = (d: MemoryDriver, now = T0, over: { visibilityMs?: number; workerId?: string } = {}) =>
  d.jobClaim({ queues: ['q'], limit: 100, workerId: over.workerId ?? 'w1', now, nowIso: iso(now), ...over });

describe('jobHeartbeat', () => {
  it('extends active jobs held by the worker and reports every state', async () => {
    const d = new MemoryDriver();
    const [a, b, c] = [stored(), stored(), stored()];
    await d.jobInsert(at([a!, b!]));
    await claimAll(d, T0, { visibilityMs: 1_000 });
    await d.jobInsert(at([c!]));
    const res = await d.jobHeartbeat({ ids: [a!.job.id, c!.job.id, 'gone'], now: T0 + 500, workerId: 'w1' });
    expect(res.states).toEqual({ [a!.job.id]: 'active', [c!.job.id]: 'available', gone: null });
    expect(res.extended).toEqual([{ id: a!.job.id, type: 'test.job', queue: 'q', state: 'active', attempt: 1, visibleUntil: T0 + 1_500, worker_id: 'w1' }]);
    // b was not extended: it is the overdue one now
    expect((await d.jobListOverdue({ now: T0 + 1_200, limit: 10 })).map((s) => s.job.id)).toEqual([b!.job.id]);
  });

  it('refuses another worker and honours an explicit extension', async () => {
    const d = new MemoryDriver();
    const a = stored();
    await d.jobInsert(at([a]));
    await claimAll(d);
    expect((await d.jobHeartbeat({ ids: [a.job.id], now: T0, workerId: 'w2' })).extended).toEqual([]);
    const res = await d.jobHeartbeat({ ids: [a.job.id], now: T0 + 10, visibilityMs: 7 });
    expect(res.extended[0]?.visibleUntil).toBe(T0 + 17);
  });
});

describe('jobPromote and jobExpire', () => {
  it('promotes due jobs of every queue up to the limit, discarding expired ones', async () => {
    const d = new MemoryDriver();
    const jobs = [scheduled(T0 + 1, { queue: 'a' }), scheduled(T0 + 2, { queue: 'b' }), scheduled(T0 + 3, { queue: 'b' }, { expiresAt: T0 + 4 }), scheduled(T0 + 99)];
    await d.jobInsert(at(jobs));
    const first = await d.jobPromote({ now: T0 + 10, nowIso: iso(T0 + 10), limit: 2 });
    expect(first.promoted.map((p) => p.id)).toEqual([jobs[0]!.job.id, jobs[1]!.job.id]);
    const second = await d.jobPromote({ now: T0 + 10, nowIso: iso(T0 + 10), limit: 10 });
    expect(second.promoted).toEqual([]);
    expect(second.expired.map((j) => [j.id, j.state])).toEqual([[jobs[2]!.job.id, 'discarded']]);
    expect((await d.jobCounts({})).scheduled).toBe(1);
  });

  it('expires waiting jobs past expires_at, earliest first, leaving active ones alone', async () => {
    const d = new MemoryDriver();
    const running = stored({}, { expiresAt: T0 + 1 });
    await d.jobInsert(at([running]));
    await claimAll(d);
    const late = stored({}, { expiresAt: T0 + 20 });
    const early = scheduled(T0 + 1_000, {}, { expiresAt: T0 + 10 });
    const retry = stored({ state: 'retryable' }, { dueAt: T0 + 1_000, expiresAt: T0 + 15 });
    const keep = stored({}, { expiresAt: T0 + 50 });
    await d.jobInsert(at([late, early, retry, keep, stored({ state: 'pending' }, { expiresAt: T0 })]));
    const res = await d.jobExpire({ now: T0 + 30, nowIso: iso(T0 + 30), limit: 2 });
    expect(res.map((j) => j.id)).toEqual([early.job.id, retry.job.id]);
    expect(res[0]).toMatchObject({ state: 'discarded', expired_at: iso(T0 + 30), discarded_at: iso(T0 + 30) });
    expect((await d.jobExpire({ now: T0 + 30, nowIso: iso(T0 + 30), limit: 10 })).map((j) => j.id)).toEqual([late.job.id]);
    expect((await d.jobGet(running.job.id))?.job.state).toBe('active');
  });
});

describe('jobListOverdue', () => {
  it('lists active jobs past min(visibleUntil, timeoutAt), oldest first, without changing them', async () => {
    const d = new MemoryDriver();
    const slow = stored({}, { visibilityMs: 100, timeoutMs: 10_000 });
    const timed = stored({}, { visibilityMs: 10_000, timeoutMs: 50 });
    await d.jobInsert(at([slow, timed, stored({}, { visibilityMs: 500, timeoutMs: 500 })]));
    await claimAll(d);
    const overdue = await d.jobListOverdue({ now: T0 + 100, limit: 10 });
    expect(overdue.map((s) => s.job.id)).toEqual([timed.job.id, slow.job.id]);
    expect(overdue[0]?.x.timeoutAt).toBe(T0 + 50);
    expect((await d.jobListOverdue({ now: T0 + 100, limit: 1 })).map((s) => s.job.id)).toEqual([timed.job.id]);
    expect((await d.jobCounts({})).active).toBe(3);
  });
});

describe('jobPrune', () => {
  it('deletes finished jobs older than before, oldest first, keeping dead letters unless asked', async () => {
    const d = new MemoryDriver();
    const done = (finishedAt: number, state: 'completed' | 'cancelled' | 'discarded' = 'completed', deadLetter?: boolean) =>
      stored({ state }, { finishedAt, ...(deadLetter ? { deadLetter } : {}) });
    const jobs = [done(T0 + 3), done(T0 + 1, 'cancelled'), done(T0 + 2, 'discarded', true), done(T0 + 10), stored()];
    await d.jobInsert(at(jobs));
    expect(await d.jobPrune({ before: T0 + 5, limit: 1 })).toBe(1);
    expect(await d.jobGet(jobs[1]!.job.id)).toBeNull();
    expect(await d.jobPrune({ before: T0 + 5, limit: 10 })).toBe(1);
    expect(await d.jobGet(jobs[0]!.job.id)).toBeNull();
    expect(await d.jobGet(jobs[2]!.job.id)).not.toBeNull();
    expect(await d.jobPrune({ before: T0 + 5, limit: 10, deadLetter: true })).toBe(1);
    expect(await d.jobGet(jobs[2]!.job.id)).toBeNull();
    expect(await d.jobCounts({})).toMatchObject({ completed: 1, cancelled: 0, discarded: 0, available: 1 });
  });
});

describe('jobDelete and jobList', () => {
  it('deletes only when the guards hold', async () => {
    const d = new MemoryDriver();
    const a = stored();
    await d.jobInsert(at([a]));
    expect(await d.jobDelete({ id: a.job.id, expect: { states: ['completed'] } })).toBeNull();
    expect(await d.jobDelete({ id: a.job.id, expect: { deadLetter: true } })).toBeNull();
    expect(await d.jobDelete({ id: a.job.id, expect: { states: ['available'], deadLetter: false } })).toMatchObject({ id: a.job.id });
    expect(await d.jobDelete({ id: a.job.id })).toBeNull();
    expect((await d.jobCounts({})).available).toBe(0);
    expect((await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) })).jobs).toEqual([]);
  });

  it('lists newest first with filters, paging and a total', async () => {
    const d = new MemoryDriver();
    const jobs = [stored(), stored({ type: 'other' }), stored({ queue: 'z' }), stored(), stored({ state: 'discarded' }, { deadLetter: true, finishedAt: T0 })];
    await d.jobInsert(at(jobs));
    const ids = (xs: { id: string }[]) => xs.map((j) => j.id);
    const all = await d.jobList({ limit: 2, offset: 1 });
    expect(all.total).toBe(5);
    expect(ids(all.jobs)).toEqual([jobs[3]!.job.id, jobs[2]!.job.id]);
    expect(ids((await d.jobList({ queue: 'q', type: 'test.job', state: 'available', limit: 10, offset: 0 })).jobs)).toEqual([jobs[3]!.job.id, jobs[0]!.job.id]);
    expect((await d.jobList({ deadLetter: false, limit: 10, offset: 0 })).total).toBe(4);
    expect(ids((await d.jobList({ deadLetter: true, limit: 10, offset: 0 })).jobs)).toEqual([jobs[4]!.job.id]);
  });
});
