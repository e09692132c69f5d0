import { describe, expect, it } from 'vitest';
import type { ClaimParams } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';
import { at, iso, scheduled, stored, T0 } from './fixtures.js';

const claim = (d: MemoryDriver, over: Partial<ClaimParams> = {}, now = T0) =>
  d.jobClaim({ queues: ['q'], limit: 10, workerId: 'w1', now, nowIso: iso(now), ...over });

describe('jobClaim', () => {
  it('takes higher priority first, then FIFO', async () => {
    const d = new MemoryDriver();
    const low1 = stored({ priority: 0 });
    const high = stored({ priority: 5 });
    const low2 = stored({ priority: 0 });
    const neg = stored({ priority: -3 });
    await d.jobInsert(at([low1, high, neg, low2]));
    const res = await claim(d);
    expect(res.jobs.map((j) => j.id)).toEqual([high.job.id, low1.job.id, low2.job.id, neg.job.id]);
  });

  it('fills from queues in the order given and respects the limit', async () => {
    const d = new MemoryDriver();
    const a = [stored({ queue: 'a' }), stored({ queue: 'a' })];
    const b = [stored({ queue: 'b', priority: 100 }), stored({ queue: 'b' })];
    await d.jobInsert(at([...b, ...a]));
    const res = await claim(d, { queues: ['a', 'b'], limit: 3 });
    expect(res.jobs.map((j) => j.id)).toEqual([a[0]!.job.id, a[1]!.job.id, b[0]!.job.id]);
    expect((await d.jobCounts({ queue: 'b' })).available).toBe(1);
  });

  it('skips paused queues and resumes in the usual order', async () => {
    const d = new MemoryDriver();
    const a = stored({ queue: 'a' });
    const b = stored({ queue: 'b' });
    await d.jobInsert(at([a, b]));
    await d.queueSetPaused({ name: 'a', paused: true, nowIso: iso(T0) });
    expect((await claim(d, { queues: ['a', 'b'] })).jobs.map((j) => j.id)).toEqual([b.job.id]);
    await d.queueSetPaused({ name: 'a', paused: false, nowIso: iso(T0) });
    expect((await claim(d, { queues: ['a', 'b'] })).jobs.map((j) => j.id)).toEqual([a.job.id]);
  });

  it('sets the claim fields', async () => {
    const d = new MemoryDriver();
    const j = stored({ next_attempt_at: iso(T0), attempt: 1 }, { progress: { progress: 0.5, message: null, data: null, updated_at: iso(T0) } });
    await d.jobInsert(at([j]));
    const now = T0 + 100;
    const res = await claim(d, { workerId: 'w9' }, now);
    expect(res.jobs[0]).toMatchObject({ state: 'active', attempt: 2, started_at: iso(now), worker_id: 'w9' });
    expect(res.jobs[0]?.next_attempt_at).toBeUndefined();
    const s = await d.jobGet(j.job.id);
    expect(s?.x).toMatchObject({ claimVisibilityMs: 30_000, visibleUntil: now + 30_000, timeoutAt: now + 60_000 });
    expect(s?.x.progress).toBeUndefined();
    expect(await d.jobCounts({ queue: 'q' })).toMatchObject({ available: 0, active: 1 });
  });

  it('uses an explicit visibility for this claim', async () => {
    const d = new MemoryDriver();
    const j = stored();
    await d.jobInsert(at([j]));
    await claim(d, { visibilityMs: 5 });
    expect((await d.jobGet(j.job.id))?.x).toMatchObject({ claimVisibilityMs: 5, visibleUntil: T0 + 5 });
  });

  it('never hands a job to two claimers', async () => {
    const d = new MemoryDriver();
    await d.jobInsert(at(Array.from({ length: 50 }, () => stored())));
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(d, { workerId: `w${i}`, limit: 10 })));
    const ids = results.flatMap((r) => r.jobs.map((j) => j.id));
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
  });

  it('promotes due scheduled and retryable jobs inline, in due order, before taking available ones', async () => {
    const d = new MemoryDriver();
    const ready = stored();
    const dueLate = scheduled(T0 + 20);
    const dueEarly = stored({ state: 'retryable' }, { dueAt: T0 + 10 });
    const future = scheduled(T0 + 1_000);
    await d.jobInsert(at([ready, dueLate, dueEarly, future]));
    const res = await claim(d, {}, T0 + 20);
    expect(res.promoted.map((p) => [p.id, p.state, p.from])).toEqual([
      [dueEarly.job.id, 'available', 'retryable'],
      [dueLate.job.id, 'available', 'scheduled'],
    ]);
    expect(res.jobs.map((j) => j.id)).toEqual([ready.job.id, dueEarly.job.id, dueLate.job.id]);
    expect((await d.jobCounts({})).scheduled).toBe(1);
  });

  it('sets enqueued_at when it promotes', async () => {
    const d = new MemoryDriver();
    const s = scheduled(T0 + 5);
    await d.jobInsert(at([s]));
    await claim(d, { limit: 0 }, T0 + 7);
    // limit 0 claims nothing and does not even look at the queue
    expect((await d.jobGet(s.job.id))?.job.state).toBe('scheduled');
    await d.jobPromote({ now: T0 + 7, nowIso: iso(T0 + 7), limit: 10 });
    expect((await d.jobGet(s.job.id))?.job).toMatchObject({ state: 'available', enqueued_at: iso(T0 + 7) });
  });

  it('discards expired jobs instead of claiming them', async () => {
    const d = new MemoryDriver();
    const stale = stored({}, { expiresAt: T0 + 5 });
    const staleDue = scheduled(T0 + 1, {}, { expiresAt: T0 + 5 });
    const fine = stored({}, { expiresAt: T0 + 100 });
    await d.jobInsert(at([stale, staleDue, fine]));
    const res = await claim(d, {}, T0 + 6);
    expect(res.jobs.map((j) => j.id)).toEqual([fine.job.id]);
    expect(res.expired.map((j) => [j.id, j.state, j.expired_at, j.discarded_at]).sort()).toEqual(
      [
        [stale.job.id, 'discarded', iso(T0 + 6), iso(T0 + 6)],
        [staleDue.job.id, 'discarded', iso(T0 + 6), iso(T0 + 6)],
      ].sort(),
    );
    expect((await d.jobGet(stale.job.id))?.x.finishedAt).toBe(T0 + 6);
    expect(res.promoted).toEqual([]);
  });

  it('keeps a job whose expiry equals now claimable', async () => {
    const d = new MemoryDriver();
    await d.jobInsert(at([stored({}, { expiresAt: T0 })]));
    expect((await claim(d)).jobs).toHaveLength(1);
  });

  it('bounds inline promotion per claim, leaving the rest to later claims in due order', async () => {
    const d = new MemoryDriver();
    const due = Array.from({ length: 10_005 }, (_, i) => scheduled(T0 + i));
    await d.jobInsert(at(due));
    const now = T0 + 20_000;
    const first = await claim(d, { limit: 1 }, now);
    expect(first.promoted).toHaveLength(10_001);
    expect(first.jobs.map((j) => j.id)).toEqual([due[0]!.job.id]);
    expect((await d.jobCounts({})).scheduled).toBe(4);
    const second = await claim(d, { limit: 1 }, now);
    expect(second.promoted.map((p) => p.id)).toEqual(due.slice(10_001).map((s) => s.job.id));
    expect(second.jobs.map((j) => j.id)).toEqual([due[1]!.job.id]);
  });

  it('never promotes a waiting job that has no due time', async () => {
    const d = new MemoryDriver();
    const undated = scheduled(T0);
    delete undated.x.dueAt;
    const dated = scheduled(T0 + 1);
    await d.jobInsert(at([undated, dated]));
    const res = await claim(d, {}, T0 + 1_000_000);
    expect(res.jobs.map((j) => j.id)).toEqual([dated.job.id]);
    expect((await d.jobGet(undated.job.id))?.job.state).toBe('scheduled');
  });

  it('returns nothing for unknown queues', async () => {
    const d = new MemoryDriver();
    expect(await claim(d, { queues: ['nope'] })).toEqual({ jobs: [], promoted: [], expired: [] });
  });
});
