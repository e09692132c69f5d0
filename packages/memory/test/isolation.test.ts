import { describe, expect, it } from 'vitest';
import { MemoryDriver } from '../src/index.js';
import { at, iso, stored, T0 } from './fixtures.js';

describe('copy at the boundary', () => {
  it('is not changed by mutating what was passed to insert or a transition', async () => {
    const d = new MemoryDriver();
    const s = stored();
    await d.jobInsert(at([s]));
    (s.job.args[1] as { nested: string }).nested = 'changed';
    s.job.meta.trace = 'changed';
    s.x.visibilityMs = 1;
    await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) });
    const result = { rows: [1, 2] };
    await d.jobTransition({ id: s.job.id, from: ['active'], to: 'completed', set: { result }, x: { finishedAt: T0 } });
    result.rows.push(3);
    const got = await d.jobGet(s.job.id);
    expect(got?.job.args).toEqual([1, { nested: 'value' }]);
    expect(got?.job.meta).toEqual({ trace: 'abc' });
    expect(got?.job.result).toEqual({ rows: [1, 2] });
    expect(got?.x.claimVisibilityMs).toBe(30_000);
  });

  it('is not changed by mutating what it returned', async () => {
    const d = new MemoryDriver();
    const s = stored();
    const res = await d.jobInsert(at([s]));
    if (res.ok) (res.outcomes[0]!.job.args as unknown[]).push('x');
    const claimed = await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) });
    claimed.jobs[0]!.state = 'completed';
    (claimed.jobs[0]!.meta as Record<string, unknown>).trace = 'x';
    const got = await d.jobGet(s.job.id);
    got!.x.visibleUntil = 0;
    got!.job.args.length = 0;
    const again = await d.jobGet(s.job.id);
    expect(again?.job).toMatchObject({ state: 'active', args: [1, { nested: 'value' }], meta: { trace: 'abc' } });
    expect(again?.x.visibleUntil).toBe(T0 + 30_000);
    const counts = await d.jobCounts({});
    counts.active = 99;
    expect((await d.jobCounts({})).active).toBe(1);
    const q = (await d.queueGet('q'))!;
    q.paused = true;
    expect((await d.queueGet('q'))?.paused).toBe(false);
  });
});
