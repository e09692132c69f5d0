import { describe, expect, it } from 'vitest';
import { allowedFrom, type TransitionOp } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';
import { at, iso, stored, T0 } from './fixtures.js';

/** A driver holding one job claimed by `w1` at T0 (attempt 1). */
async function withActive() {
  const d = new MemoryDriver();
  const s = stored();
  await d.jobInsert(at([s]));
  await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w1', now: T0, nowIso: iso(T0) });
  return { d, id: s.job.id };
}

const ack = (id: string, over: Partial<TransitionOp> = {}): TransitionOp => ({
  id,
  from: ['active'],
  to: 'completed',
  set: { completed_at: iso(T0 + 1), result: { ok: true } },
  x: { finishedAt: T0 + 1, visibleUntil: null, timeoutAt: null },
  ...over,
});

describe('jobTransition', () => {
  it('applies set, unset and x, and reports the previous state', async () => {
    const { d, id } = await withActive();
    const res = await d.jobTransition(ack(id, { unset: ['worker_id'] }));
    expect(res).toMatchObject({ ok: true, from: 'active', job: { state: 'completed', result: { ok: true }, completed_at: iso(T0 + 1) } });
    const s = await d.jobGet(id);
    expect(s?.job.worker_id).toBeUndefined();
    expect(s?.x.visibleUntil).toBeUndefined();
    expect(s?.x.timeoutAt).toBeUndefined();
    expect(s?.x.finishedAt).toBe(T0 + 1);
    expect(await d.jobCounts({ queue: 'q' })).toMatchObject({ active: 0, completed: 1 });
    expect(await d.jobListOverdue({ now: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]);
  });

  it('refuses when the state is not in from, returning the current job', async () => {
    const { d, id } = await withActive();
    await d.jobTransition(ack(id));
    const again = await d.jobTransition(ack(id));
    expect(again).toMatchObject({ ok: false, state: 'completed', job: { id } });
  });

  it('reports a missing job with state null', async () => {
    const d = new MemoryDriver();
    expect(await d.jobTransition(ack('missing'))).toEqual({ ok: false, state: null });
  });

  it('checks the attempt, worker and visibility guards', async () => {
    const { d, id } = await withActive();
    const x = (await d.jobGet(id))!.x;
    expect((await d.jobTransition(ack(id, { expect: { attempt: 2 } }))).ok).toBe(false);
    expect((await d.jobTransition(ack(id, { expect: { workerId: 'w2' } }))).ok).toBe(false);
    expect((await d.jobTransition(ack(id, { expect: { visibleUntil: x.visibleUntil! + 1 } }))).ok).toBe(false);
    expect((await d.jobTransition(ack(id, { expect: { deadLetter: true } }))).ok).toBe(false);
    expect((await d.jobGet(id))?.job.state).toBe('active');
    const ok = await d.jobTransition(ack(id, { expect: { attempt: 1, workerId: 'w1', visibleUntil: x.visibleUntil!, deadLetter: false } }));
    expect(ok.ok).toBe(true);
  });

  it('skips the worker guard when the job has no worker', async () => {
    const d = new MemoryDriver();
    const s = stored();
    await d.jobInsert(at([s]));
    const res = await d.jobTransition({ id: s.job.id, from: ['available'], to: 'cancelled', expect: { workerId: 'anyone' } });
    expect(res.ok).toBe(true);
  });

  it('refuses a change the transition table does not have, even when from allows it', async () => {
    const { d, id } = await withActive();
    await d.jobTransition(ack(id));
    const res = await d.jobTransition({ id, from: ['completed'], to: 'active' });
    expect(res).toMatchObject({ ok: false, state: 'completed' });
  });

  it('allows an in-place update when from includes the current state', async () => {
    const { d, id } = await withActive();
    const progress = { progress: 0.5, message: 'half', data: null, updated_at: iso(T0) };
    const res = await d.jobTransition({ id, from: ['active'], to: 'active', x: { progress }, returning: 'summary' });
    expect(res).toEqual({ ok: true, from: 'active', summary: { id, type: 'test.job', queue: 'q', state: 'active', attempt: 1 } });
    expect((await d.jobGet(id))?.x.progress).toEqual(progress);
  });

  it('gives a job re-entering available a new FIFO place', async () => {
    const d = new MemoryDriver();
    const [a, b] = [stored(), stored()];
    await d.jobInsert(at([a!, b!]));
    await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) });
    await d.jobTransition({ id: a!.job.id, from: allowedFrom('available', 'requeue'), to: 'available' });
    const c = stored();
    await d.jobInsert(at([c]));
    const res = await d.jobClaim({ queues: ['q'], limit: 5, workerId: 'w', now: T0, nowIso: iso(T0) });
    expect(res.jobs.map((j) => j.id)).toEqual([b!.job.id, a!.job.id, c.job.id]);
    expect(res.jobs[1]?.attempt).toBe(2);
  });

  it('moves a job into and out of the dead-letter queue', async () => {
    const { d, id } = await withActive();
    await d.jobTransition({ id, from: ['active'], to: 'discarded', set: { discarded_at: iso(T0) }, x: { deadLetter: true, finishedAt: T0 } });
    expect((await d.jobList({ deadLetter: true, limit: 10, offset: 0 })).jobs.map((j) => j.id)).toEqual([id]);
    const revive = await d.jobTransition({ id, from: ['discarded'], to: 'available', expect: { deadLetter: true }, x: { deadLetter: null, finishedAt: null } });
    expect(revive.ok).toBe(true);
    expect((await d.jobList({ deadLetter: true, limit: 10, offset: 0 })).total).toBe(0);
    expect(await d.jobPrune({ before: Number.MAX_SAFE_INTEGER, limit: 10, deadLetter: true })).toBe(0);
    expect((await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) })).jobs[0]?.attempt).toBe(2);
  });

  it('moves a job between queues when set changes its queue', async () => {
    const d = new MemoryDriver();
    const s = stored();
    await d.jobInsert(at([s]));
    await d.jobTransition({ id: s.job.id, from: ['available'], to: 'available', set: { queue: 'other' } });
    expect((await d.jobCounts({ queue: 'q' })).available).toBe(0);
    expect((await d.jobCounts({ queue: 'other' })).available).toBe(1);
    expect((await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) })).jobs).toEqual([]);
    expect((await d.jobClaim({ queues: ['other'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) })).jobs).toHaveLength(1);
  });

  it('transitionMany applies independent ops in order', async () => {
    const d = new MemoryDriver();
    const jobs = [stored(), stored(), stored()];
    await d.jobInsert(at(jobs));
    await d.jobClaim({ queues: ['q'], limit: 2, workerId: 'w', now: T0, nowIso: iso(T0) });
    const res = await d.jobTransitionMany(jobs.map((j) => ack(j.job.id, { returning: 'summary' })));
    expect(res.map((r) => r.ok)).toEqual([true, true, false]);
    expect(res[2]).toMatchObject({ state: 'available' });
    const dup = await d.jobTransitionMany([ack(jobs[2]!.job.id, { from: ['available'], to: 'cancelled' }), ack(jobs[2]!.job.id, { from: ['available'], to: 'cancelled' })]);
    expect(dup.map((r) => r.ok)).toEqual([true, false]);
  });
});
