/** `jobInsert`: what is stored, all-or-nothing aborts, and every unique-conflict outcome. */
import { expect } from 'vitest';
import type { JobState } from '@ojskit/core';
import type { JobInternals } from '@ojskit/core/driver';
import { iso, T0, type DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';

type Conflict = NonNullable<JobInternals['uniqueOnConflict']>;

/** Unique internals: blocking in every waiting or running state unless `uniqueStates` says otherwise. */
function unique(key: string, onConflict: Conflict, extra: Partial<JobInternals> = {}): Partial<JobInternals> {
  return { uniqueKey: key, uniqueStates: ['scheduled', 'available', 'pending', 'active', 'retryable'] as JobState[], uniqueOnConflict: onConflict, ...extra };
}

async function count(t: DriverCaseContext, queue: string, state: JobState): Promise<number> {
  return (await t.driver.jobCounts({ queue }))[state];
}

export function registerInsertCases(suite: DriverSuite): void {
  suite.group('jobInsert', () => {
    suite.test(
      'insert.depth-bounds',
      'bounds (given, or read from the stored queue configuration) refuse the insert that would pass them, counting waiting jobs only',
      async (t) => {
        const [q, other] = [t.queue(), t.queue()];
        await t.insert([t.job(q), t.job(q, { state: 'scheduled' })]);
        const refused = await t.driver.jobInsert({
          jobs: [t.job(other), t.job(q), t.job(q, { state: 'pending' })],
          now: T0,
          nowIso: iso(T0),
          bounds: { [q]: 3 },
        });
        expect(refused).toEqual({ ok: false, index: 2, reason: 'queue_full', queue: q, depth: 3, bound: 3 });
        expect(await count(t, other, 'available')).toBe(0);
        const fits = await t.driver.jobInsert({ jobs: [t.job(q)], now: T0, nowIso: iso(T0), bounds: { [q]: 3 } });
        expect(fits).toMatchObject({ ok: true, depths: { [q]: 3 } });
        await t.claim([q], 1);
        await t.driver.queueConfigSet({ name: q, max_depth: 3, updated_at: iso(T0) });
        expect(await t.driver.queueConfigGet(q)).toEqual({ name: q, max_depth: 3, updated_at: iso(T0) });
        expect((await t.driver.queueConfigList()).filter((c) => c.name === q)).toHaveLength(1);
        // one job went active: room for one more, read from the stored configuration
        expect(await t.driver.jobInsert({ jobs: [t.job(q)], now: T0, nowIso: iso(T0), bounds: 'stored' })).toMatchObject({ ok: true, depths: { [q]: 3 } });
        expect(await t.driver.jobInsert({ jobs: [t.job(q)], now: T0, nowIso: iso(T0), bounds: 'stored' })).toMatchObject({
          ok: false,
          reason: 'queue_full',
          depth: 3,
        });
      },
    );

    suite.test('insert.stores-and-registers', 'stores each job exactly as given (envelope and internals), in order, and registers its queue', async (t) => {
      const [qa, qb] = [t.heldQueue(), t.heldQueue()];
      const jobs = [t.job(qa), t.job(qb, { state: 'scheduled' }), t.job(qa, { state: 'pending' }, { expiresAt: T0 + 5_000 })];
      const result = await t.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
      expect(result).toEqual({ ok: true, outcomes: jobs.map((s) => ({ status: 'inserted', job: s.job })) });
      for (const s of jobs) expect(await t.driver.jobGet(s.job.id)).toEqual(s);
      expect(await t.driver.queueGet(qa)).toEqual({ name: qa, paused: false, created_at: iso(T0) });
      expect((await t.driver.queueList()).map((q) => q.name).sort()).toEqual([qa, qb].sort());
      expect(await t.driver.jobCounts({ queue: qa })).toMatchObject({ available: 1, pending: 1, scheduled: 0 });
      expect(await t.driver.jobCounts({})).toMatchObject({ available: 1, pending: 1, scheduled: 1 });
    });

    suite.test(
      'insert.user-data-fidelity',
      'keeps args, meta, result and unknown attributes as sent: key order, NUL and astral characters, big and tiny numbers, empty nestings, odd attribute names; a null result differs from none',
      async (t) => {
        const q = t.queue();
        const args = [{ b: 1, a: 2 }, 'nul\u0000byte é😀', 9007199254740991, 0.1 + 0.2, 1e-7, -5, [], {}, [[[]]], { a: { b: [null, false] } }];
        const meta = { z: 1, a: { y: [], x: null }, n: 3.141592653589793 };
        const s = t.job(q, { args, meta, '@odd': 1, '\\odd': [2], x_ext: { k: 'v' } } as never);
        await t.insert([s]);
        expect((await t.stored(s.job.id)).job).toEqual(s.job);
        const [claimed] = (await t.claim([q], 1)).jobs;
        expect(JSON.stringify(claimed!.args)).toBe(JSON.stringify(args));
        expect(JSON.stringify(claimed!.meta)).toBe(JSON.stringify(meta));
        expect(JSON.stringify((await t.stored(s.job.id)).job.args)).toBe(JSON.stringify(args));
        expect(claimed).not.toHaveProperty('result');
        expect(await t.driver.jobTransition({ id: s.job.id, from: ['active'], to: 'completed', set: { result: null }, x: { finishedAt: T0 } })).toMatchObject({
          ok: true,
          job: { result: null },
        });
        expect((await t.stored(s.job.id)).job).toHaveProperty('result', null);
        const result = { z: [1, { b: 2, a: 0.5 }], s: 'a|b\u0000' };
        await t.driver.jobTransition({ id: s.job.id, from: ['completed'], to: 'completed', set: { result } });
        expect(JSON.stringify((await t.stored(s.job.id)).job.result)).toBe(JSON.stringify(result));
        await t.driver.jobTransition({ id: s.job.id, from: ['completed'], to: 'completed', unset: ['result'] });
        expect((await t.stored(s.job.id)).job).not.toHaveProperty('result');
      },
    );

    suite.test(
      'insert.duplicate-id-aborts',
      'an id already stored, or given twice in one insert, aborts the whole insert with duplicate_id and stores nothing of it',
      async (t) => {
        const q = t.heldQueue();
        const first = t.job(q);
        await t.insert([first]);
        const fresh = t.job(q);
        const clash = await t.driver.jobInsert({ jobs: [fresh, { ...first, job: { ...first.job, type: 'other' } }], now: T0, nowIso: iso(T0) });
        expect(clash).toEqual({ ok: false, index: 1, reason: 'duplicate_id', existing: first.job });
        expect(await t.driver.jobGet(fresh.job.id)).toBeNull();
        const twice = t.job(q);
        expect(await t.driver.jobInsert({ jobs: [twice, { ...twice, job: { ...twice.job } }], now: T0, nowIso: iso(T0) })).toMatchObject({
          ok: false,
          index: 1,
          reason: 'duplicate_id',
        });
        expect(await t.driver.jobGet(twice.job.id)).toBeNull();
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ available: 1 });
        expect((await t.driver.jobGet(first.job.id))!.job).toEqual(first.job);
      },
    );

    suite.test(
      'insert.unique-reject-aborts-all',
      'a reject conflict aborts the whole insert, undoing what earlier jobs of it did (a replacement included)',
      async (t) => {
        const q = t.heldQueue();
        const [k1, k2] = [t.name(), t.name()];
        const held = t.job(q, {}, unique(k1, 'reject'));
        const toReplace = t.job(q, {}, unique(k2, 'reject'));
        await t.insert([held, toReplace]);
        const replacing = t.job(q, {}, unique(k2, 'replace'));
        const blocked = t.job(q, {}, unique(k1, 'reject'));
        const result = await t.driver.jobInsert({ jobs: [t.job(q), replacing, blocked], now: T0, nowIso: iso(T0) });
        expect(result).toMatchObject({ ok: false, index: 2, reason: 'unique', existing: { id: held.job.id } });
        expect(await t.state(toReplace.job.id)).toBe('available');
        expect(await t.driver.jobGet(replacing.job.id)).toBeNull();
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ available: 2, cancelled: 0 });
      },
    );

    suite.test(
      'insert.unique-ignore',
      'an ignore conflict reports the match as existing and stores nothing for that job; jobs earlier in the same insert count',
      async (t) => {
        const q = t.heldQueue();
        const key = t.name();
        const kept = t.job(q, {}, unique(key, 'reject'));
        const dup = t.job(q, {}, unique(key, 'ignore'));
        const other = t.job(q);
        const result = await t.driver.jobInsert({ jobs: [kept, dup, other], now: T0, nowIso: iso(T0) });
        expect(result.ok && result.outcomes.map((o) => [o.status, o.job.id])).toEqual([
          ['inserted', kept.job.id],
          ['existing', kept.job.id],
          ['inserted', other.job.id],
        ]);
        expect(await t.driver.jobGet(dup.job.id)).toBeNull();
        const later = await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key, 'ignore'))], now: T0, nowIso: iso(T0) });
        expect(later).toMatchObject({ ok: true, outcomes: [{ status: 'existing', job: { id: kept.job.id } }] });
        expect(await count(t, q, 'available')).toBe(2);
      },
    );

    suite.test(
      'insert.unique-replace',
      'a replace conflict cancels the match (cancelled_at, finishedAt), reports it, and stores the new job; also within one insert',
      async (t) => {
        const q = t.heldQueue();
        const key = t.name();
        const old = t.job(q, {}, unique(key, 'reject'));
        await t.insert([old]);
        const next = t.job(q, {}, unique(key, 'replace'));
        const result = await t.driver.jobInsert({ jobs: [next], now: T0 + 5, nowIso: iso(T0 + 5) });
        expect(result).toMatchObject({
          ok: true,
          outcomes: [
            { status: 'inserted', job: { id: next.job.id, state: 'available' }, replaced: { id: old.job.id, state: 'cancelled', cancelled_at: iso(T0 + 5) } },
          ],
        });
        expect(await t.stored(old.job.id)).toMatchObject({ job: { state: 'cancelled' }, x: { finishedAt: T0 + 5 } });
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ available: 1, cancelled: 1 });
        // within one insert: the second replaces the first
        const key2 = t.name();
        const [a, b] = [t.job(q, {}, unique(key2, 'reject')), t.job(q, {}, unique(key2, 'replace'))];
        const both = await t.driver.jobInsert({ jobs: [a, b], now: T0, nowIso: iso(T0) });
        expect(both.ok && both.outcomes.map((o) => (o.status === 'inserted' ? o.replaced?.id : 'existing'))).toEqual([undefined, a.job.id]);
        expect(await t.state(a.job.id)).toBe('cancelled');
        expect(await t.state(b.job.id)).toBe('available');
      },
    );

    suite.test(
      'insert.unique-replace-except-schedule',
      "replace_except_schedule: the new job takes a scheduled match's scheduled_at, due time and state; without a schedule it behaves as replace",
      async (t) => {
        const q = t.queue();
        const key = t.name();
        const old = t.job(q, { state: 'scheduled', scheduled_at: iso(T0 + 60_000) }, unique(key, 'reject', { dueAt: T0 + 60_000 }));
        await t.insert([old]);
        const next = t.job(q, {}, unique(key, 'replace_except_schedule'));
        const result = await t.driver.jobInsert({ jobs: [next], now: T0, nowIso: iso(T0) });
        expect(result).toMatchObject({
          ok: true,
          outcomes: [
            {
              status: 'inserted',
              job: { id: next.job.id, state: 'scheduled', scheduled_at: iso(T0 + 60_000) },
              replaced: { id: old.job.id, state: 'cancelled' },
            },
          ],
        });
        expect((await t.stored(next.job.id)).x.dueAt).toBe(T0 + 60_000);
        expect(await t.claimIds([q], 5, { now: T0 + 1 })).toEqual([]);
        expect(await t.claimIds([q], 5, { now: T0 + 60_000 })).toEqual([next.job.id]);
        const key2 = t.name();
        await t.insert([t.job(q, {}, unique(key2, 'reject'))]);
        const plain = await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key2, 'replace_except_schedule'))], now: T0, nowIso: iso(T0) });
        expect(plain).toMatchObject({ ok: true, outcomes: [{ job: { state: 'available' }, replaced: { state: 'cancelled' } }] });
      },
    );

    suite.test(
      'insert.unique-scope',
      'a match blocks only in its unique states and before its uniqueUntil; a terminal match blocks when its states name it, and replace then stores without cancelling it',
      async (t) => {
        const q = t.queue();
        const key = t.name();
        const done = t.job(q, { state: 'completed' }, unique(key, 'reject'));
        const lapsed = t.job(q, {}, unique(key, 'reject', { uniqueUntil: T0 }));
        await t.insert([done, lapsed]);
        expect((await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key, 'reject'))], now: T0, nowIso: iso(T0) })).ok).toBe(true);
        const key2 = t.name();
        const finished = t.job(q, { state: 'completed' }, unique(key2, 'reject', { uniqueStates: ['completed'] }));
        await t.insert([finished]);
        expect(
          await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key2, 'reject', { uniqueStates: ['completed'] }))], now: T0, nowIso: iso(T0) }),
        ).toMatchObject({
          ok: false,
          index: 0,
          reason: 'unique',
          existing: { id: finished.job.id },
        });
        const replaced = await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key2, 'replace', { uniqueStates: ['completed'] }))], now: T0, nowIso: iso(T0) });
        expect(replaced.ok && replaced.outcomes[0]).toMatchObject({ status: 'inserted' });
        expect(replaced.ok && replaced.outcomes[0]?.status === 'inserted' && replaced.outcomes[0].replaced).toBeFalsy();
        expect(await t.state(finished.job.id)).toBe('completed');
      },
    );

    suite.test('insert.unique-freed-by-delete', "a deleted job's unique key no longer blocks", async (t) => {
      const q = t.queue();
      const key = t.name();
      const a = t.job(q, {}, unique(key, 'reject'));
      await t.insert([a]);
      expect(await t.driver.jobDelete({ id: a.job.id })).toMatchObject({ id: a.job.id });
      expect((await t.driver.jobInsert({ jobs: [t.job(q, {}, unique(key, 'reject'))], now: T0, nowIso: iso(T0) })).ok).toBe(true);
    });
  });
}
