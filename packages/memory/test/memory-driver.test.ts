/**
 * What only the memory driver promises beyond the shared driver suite (`driver-contract.test.ts`, which covers
 * every primitive, the races and the transition table): the bounds and order of its inline promotion, an
 * insert that throws half-way leaving nothing behind, and its capabilities.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '@ojskit/core';
import type { ClaimParams, Driver } from '@ojskit/core/driver';
import { MemoryDriver } from '../src/index.js';
import { at, iso, scheduled, stored, T0 } from './fixtures.js';

const claim = (d: MemoryDriver, over: Partial<ClaimParams> = {}, now = T0) =>
  d.jobClaim({ queues: ['q'], limit: 10, workerId: 'w1', now, nowIso: iso(now), ...over });

describe('jobClaim (memory)', () => {
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

describe('capabilities (memory)', () => {
  it('declares what it can do', () => {
    const d = new MemoryDriver();
    expect(d.name).toBe('memory');
    expect(d.capabilities).toEqual({
      transactionalEnqueue: false,
      crossProcessEvents: false,
      uniqueStrength: 'strong',
      durable: false,
      orderedCalls: true,
      history: true,
      rateLimiting: true,
    });
    expect((d as Driver).events).toBeUndefined();
  });
});
