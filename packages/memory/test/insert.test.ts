import { describe, expect, it } from 'vitest';
import type { Job, JobInternals, JobState } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';
import { at, iso, scheduled, stored, T0 } from './fixtures.js';

const keyed = (key: string, onConflict: NonNullable<JobInternals['uniqueOnConflict']>, extra = {}): Partial<JobInternals> => ({
  uniqueKey: key,
  uniqueStates: ['available', 'scheduled', 'active', 'retryable', 'pending'] as JobState[],
  uniqueOnConflict: onConflict,
  ...extra,
});

describe('jobInsert', () => {
  it('stores jobs in order, registers their queues and counts them', async () => {
    const d = new MemoryDriver();
    const a = stored({ queue: 'alpha' });
    const b = scheduled(T0 + 1_000, { queue: 'beta' });
    const res = await d.jobInsert(at([a, b]));
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.outcomes.map((o) => [o.status, o.job.id, o.job.state])).toEqual([
      ['inserted', a.job.id, 'available'],
      ['inserted', b.job.id, 'scheduled'],
    ]);
    expect((await d.queueList()).map((q) => [q.name, q.paused, q.created_at])).toEqual([
      ['alpha', false, iso(T0)],
      ['beta', false, iso(T0)],
    ]);
    expect((await d.jobCounts({})).available).toBe(1);
    expect((await d.jobCounts({ queue: 'beta' })).scheduled).toBe(1);
    expect(await d.jobGet(a.job.id)).toEqual(a);
  });

  it('aborts the whole insert on a duplicate id, storing nothing', async () => {
    const d = new MemoryDriver();
    const first = stored();
    await d.jobInsert(at([first]));
    const fresh = stored();
    const res = await d.jobInsert(at([fresh, stored({ id: first.job.id })]));
    expect(res).toMatchObject({ ok: false, index: 1, reason: 'duplicate_id', existing: { id: first.job.id } });
    expect(await d.jobGet(fresh.job.id)).toBeNull();
    expect((await d.jobCounts({})).available).toBe(1);
  });

  it('treats a repeated id inside one batch as a duplicate', async () => {
    const d = new MemoryDriver();
    const a = stored();
    const res = await d.jobInsert(at([a, stored({ id: a.job.id })]));
    expect(res).toMatchObject({ ok: false, index: 1, reason: 'duplicate_id' });
    expect(await d.jobGet(a.job.id)).toBeNull();
  });

  it('rejects a unique conflict and rolls back earlier jobs of the batch, including replacements', async () => {
    const d = new MemoryDriver();
    const held = stored({}, keyed('k1', 'reject'));
    const toReplace = stored({}, keyed('k2', 'reject'));
    await d.jobInsert(at([held, toReplace]));
    const replacing = stored({}, keyed('k2', 'replace'));
    const blocked = stored({}, keyed('k1', 'reject'));
    const res = await d.jobInsert(at([replacing, blocked]));
    expect(res).toMatchObject({ ok: false, index: 1, reason: 'unique', existing: { id: held.job.id } });
    expect((await d.jobGet(toReplace.job.id))?.job.state).toBe('available');
    expect(await d.jobGet(replacing.job.id)).toBeNull();
    expect((await d.jobCounts({})).cancelled).toBe(0);
  });

  it('counts jobs earlier in the same insert', async () => {
    const d = new MemoryDriver();
    const a = stored({}, keyed('k', 'reject'));
    const b = stored({}, keyed('k', 'ignore'));
    const res = await d.jobInsert(at([a, b]));
    expect(res.ok && res.outcomes.map((o) => [o.status, o.job.id])).toEqual([
      ['inserted', a.job.id],
      ['existing', a.job.id],
    ]);
    expect(await d.jobGet(b.job.id)).toBeNull();
  });

  it('ignores a match outside its unique states or past its unique period', async () => {
    const d = new MemoryDriver();
    const done = stored({ state: 'completed' }, { ...keyed('k', 'reject'), finishedAt: T0 });
    const lapsed = stored({}, { ...keyed('k', 'reject'), uniqueUntil: T0 });
    await d.jobInsert(at([done, lapsed]));
    const res = await d.jobInsert(at([stored({}, keyed('k', 'reject'))]));
    expect(res.ok).toBe(true);
  });

  it('blocks in a terminal state when the unique states include it', async () => {
    const d = new MemoryDriver();
    await d.jobInsert(at([stored({ state: 'completed' }, { ...keyed('k', 'reject'), finishedAt: T0 })]));
    const res = await d.jobInsert(at([stored({}, { ...keyed('k', 'reject'), uniqueStates: ['completed'] })]));
    expect(res).toMatchObject({ ok: false, reason: 'unique' });
  });

  it('replace cancels the match and stores the new job', async () => {
    const d = new MemoryDriver();
    const old = stored({}, keyed('k', 'reject'));
    await d.jobInsert(at([old]));
    const next = stored({}, keyed('k', 'replace'));
    const res = await d.jobInsert(at([next], T0 + 5));
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.outcomes[0]).toMatchObject({
      status: 'inserted',
      job: { id: next.job.id, state: 'available' },
      replaced: { id: old.job.id, state: 'cancelled', cancelled_at: iso(T0 + 5) },
    });
    const after = await d.jobGet(old.job.id);
    expect(after?.x.finishedAt).toBe(T0 + 5);
    expect(await d.jobCounts({ queue: 'q' })).toMatchObject({ available: 1, cancelled: 1 });
  });

  it('replace of a terminal match stores the new job without cancelling anything', async () => {
    const d = new MemoryDriver();
    const old = stored({ state: 'completed' }, { ...keyed('k', 'reject'), finishedAt: T0 });
    await d.jobInsert(at([old]));
    const res = await d.jobInsert(at([stored({}, { ...keyed('k', 'replace'), uniqueStates: ['completed'] })]));
    expect(res.ok && res.outcomes[0]?.status === 'inserted' && res.outcomes[0].replaced).toBeUndefined();
    expect((await d.jobGet(old.job.id))?.job.state).toBe('completed');
  });

  it('replace_except_schedule keeps the match schedule', async () => {
    const d = new MemoryDriver();
    const old = scheduled(T0 + 60_000, {}, keyed('k', 'reject'));
    await d.jobInsert(at([old]));
    const next = stored({}, keyed('k', 'replace_except_schedule'));
    const res = await d.jobInsert(at([next]));
    expect(res.ok && res.outcomes[0]?.job).toMatchObject({ state: 'scheduled', scheduled_at: iso(T0 + 60_000) });
    expect((await d.jobGet(next.job.id))?.x.dueAt).toBe(T0 + 60_000);
    expect((await d.jobClaim({ queues: ['q'], limit: 5, workerId: 'w', now: T0 + 1, nowIso: iso(T0 + 1) })).jobs).toEqual([]);
    const later = await d.jobClaim({ queues: ['q'], limit: 5, workerId: 'w', now: T0 + 60_000, nowIso: iso(T0 + 60_000) });
    expect(later.jobs.map((j) => j.id)).toEqual([next.job.id]);
  });

  it('replace_except_schedule without a match schedule behaves as replace', async () => {
    const d = new MemoryDriver();
    await d.jobInsert(at([stored({}, keyed('k', 'reject'))]));
    const res = await d.jobInsert(at([stored({}, keyed('k', 'replace_except_schedule'))]));
    expect(res.ok && res.outcomes[0]).toMatchObject({ job: { state: 'available' }, replaced: { state: 'cancelled' } });
  });

  it('replacing a job inserted earlier in the same batch cancels it', async () => {
    const d = new MemoryDriver();
    const a = stored({}, keyed('k', 'reject'));
    const b = stored({}, keyed('k', 'replace'));
    const res = await d.jobInsert(at([a, b]));
    expect(res.ok && res.outcomes.map((o) => (o.status === 'inserted' ? o.replaced?.id : 'existing'))).toEqual([undefined, a.job.id]);
    expect((await d.jobGet(a.job.id))?.job.state).toBe('cancelled');
    expect((await d.jobGet(b.job.id))?.job.state).toBe('available');
  });

  it('frees a unique key once its job is deleted', async () => {
    const d = new MemoryDriver();
    const a = stored({}, keyed('k', 'reject'));
    await d.jobInsert(at([a]));
    expect(await d.jobDelete({ id: a.job.id })).toMatchObject({ id: a.job.id });
    expect((await d.jobInsert(at([stored({}, keyed('k', 'reject'))]))).ok).toBe(true);
  });
});

describe('jobInsert that throws', () => {
  it('leaves nothing of the batch behind when a later job cannot be copied', async () => {
    const d = new MemoryDriver();
    const first = stored();
    // Not a plain object, so it is copied by structuredClone, which throws on the function inside it;
    // an in-process caller can hand the driver such a value.
    const box = Object.assign(Object.create({}) as object, { fn: () => 1 });
    const bad = stored({ args: [box] as unknown as Job['args'] });
    await expect(d.jobInsert(at([first, bad]))).rejects.toThrow();
    expect(await d.jobGet(first.job.id)).toBeNull();
    expect((await d.jobCounts({})).available).toBe(0);
    // and the id is free again: the same job inserts and is claimed
    expect((await d.jobInsert(at([first]))).ok).toBe(true);
    const claim = await d.jobClaim({ queues: ['q'], limit: 5, workerId: 'w', now: T0, nowIso: iso(T0) });
    expect(claim.jobs.map((j) => j.id)).toEqual([first.job.id]);
  });
});
