/** PostgresDriver primitives against the real database: claim order, guards, SKIP LOCKED, services' reads. */
import { allowedFrom, type TransitionOp } from '@ojskit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';

describe.runIf(HAVE_PG)('PostgresDriver primitives', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await openTestDatabase({ events: false });
  });
  afterEach(async () => {
    await db.drop();
  });

  const claim = (queues: string[], limit: number, now = T0, workerId = 'w1') =>
    db.driver.jobClaim({ queues, limit, workerId, now, nowIso: iso(now) });

  it('inserts, reads back the envelope and internals, and registers the queue', async () => {
    const stored = storedJob('q', { meta: { trace: 'abc' }, tags: ['t'] }, { uniqueKey: undefined });
    const result = await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    expect(result).toEqual({ ok: true, outcomes: [{ status: 'inserted', job: stored.job }] });
    expect(await db.driver.jobGet(stored.job.id)).toEqual(stored);
    expect(Object.keys((await db.driver.jobGet(stored.job.id))!.job).slice(0, 4)).toEqual(['specversion', 'id', 'type', 'queue']);
    expect(await db.driver.queueGet('q')).toEqual({ name: 'q', paused: false, created_at: iso(T0) });
  });

  it('refuses a duplicate id, storing nothing of the batch', async () => {
    const first = storedJob('q');
    await db.driver.jobInsert({ jobs: [first], now: T0, nowIso: iso(T0) });
    const fresh = storedJob('q');
    const result = await db.driver.jobInsert({ jobs: [fresh, { ...first, job: { ...first.job, type: 'other' } }], now: T0, nowIso: iso(T0) });
    expect(result).toEqual({ ok: false, index: 1, reason: 'duplicate_id', existing: first.job });
    expect(await db.driver.jobGet(fresh.job.id)).toBeNull();
  });

  it('claims by priority, then FIFO, one queue after another, and never twice', async () => {
    const low = storedJob('a', { priority: 0 });
    const high = storedJob('a', { priority: 5 });
    const low2 = storedJob('a', { priority: 0 });
    const other = storedJob('b', { priority: 9 });
    await db.driver.jobInsert({ jobs: [low, high, low2, other], now: T0, nowIso: iso(T0) });
    const first = await claim(['a', 'b'], 3);
    expect(first.jobs.map((j) => j.id)).toEqual([high.job.id, low.job.id, low2.job.id]);
    const job = first.jobs[0]!;
    expect(job).toMatchObject({ state: 'active', attempt: 1, started_at: iso(T0), worker_id: 'w1' });
    const x = (await db.driver.jobGet(job.id))!.x;
    expect(x).toMatchObject({ claimVisibilityMs: 30_000, visibleUntil: T0 + 30_000, timeoutAt: T0 + 60_000 });
    const second = await claim(['a', 'b'], 10);
    expect(second.jobs.map((j) => j.id)).toEqual([other.job.id]);
    expect((await claim(['a', 'b'], 10)).jobs).toEqual([]);
  });

  it('returns a large claim in FIFO order within a priority', async () => {
    const jobs = Array.from({ length: 60 }, (_, i) => storedJob('fifo', { priority: i % 3 === 0 ? 1 : 0 }));
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    // Rewrite the first half in place (same state, same seq): their rows move behind the others on disk,
    // so physical order no longer matches FIFO order.
    await db.driver.jobTransitionMany(jobs.slice(0, 30).map((j) => ({ id: j.job.id, from: ['available'], to: 'available', set: { tags: ['moved'] } })));
    const { jobs: claimed } = await claim(['fifo'], 60);
    const expected = [...jobs.filter((j) => j.job.priority === 1), ...jobs.filter((j) => j.job.priority === 0)].map((j) => j.job.id);
    expect(claimed.map((j) => j.id)).toEqual(expected);
  });

  it('keeps FIFO order across claims and later inserts', async () => {
    const [a, b] = [storedJob('fifo2'), storedJob('fifo2')];
    await db.driver.jobInsert({ jobs: [a!, b!], now: T0, nowIso: iso(T0) });
    expect((await claim(['fifo2'], 1)).jobs.map((j) => j.id)).toEqual([a!.job.id]);
    const c = storedJob('fifo2');
    await db.driver.jobInsert({ jobs: [c], now: T0, nowIso: iso(T0) });
    expect((await claim(['fifo2'], 2)).jobs.map((j) => j.id)).toEqual([b!.job.id, c.job.id]);
  });

  it('hands each job to exactly one of many concurrent claimers (SKIP LOCKED)', async () => {
    const jobs = Array.from({ length: 200 }, () => storedJob('race'));
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    const peer = db.peer({ events: false });
    const claimers = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? db.driver : peer));
    const results = await Promise.all(
      claimers.map(async (driver, i) => {
        const ids: string[] = [];
        for (;;) {
          const { jobs: got } = await driver.jobClaim({ queues: ['race'], limit: 7, workerId: `w${i}`, now: T0, nowIso: iso(T0) });
          if (got.length === 0) return ids;
          ids.push(...got.map((j) => j.id));
        }
      }),
    );
    const all = results.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  });

  it('promotes due scheduled jobs inside the claim and claims them in the same call', async () => {
    const later = storedJob('s', { state: 'scheduled', scheduled_at: iso(T0 + 1_000) }, { dueAt: T0 + 1_000 });
    await db.driver.jobInsert({ jobs: [later], now: T0, nowIso: iso(T0) });
    expect((await claim(['s'], 5)).jobs).toEqual([]);
    const result = await claim(['s'], 5, T0 + 1_000);
    expect(result.promoted).toEqual([{ id: later.job.id, type: 'test.job', queue: 's', state: 'available', attempt: 0, from: 'scheduled' }]);
    expect(result.jobs.map((j) => j.id)).toEqual([later.job.id]);
    expect(result.jobs[0]).toMatchObject({ state: 'active', enqueued_at: iso(T0 + 1_000) });
  });

  it('discards expired jobs instead of handing them out, and still fills the claim', async () => {
    const expired = storedJob('e', { priority: 9, expires_at: iso(T0 + 10) }, { expiresAt: T0 + 10 });
    const fine = storedJob('e');
    await db.driver.jobInsert({ jobs: [expired, fine], now: T0, nowIso: iso(T0) });
    const result = await claim(['e'], 1, T0 + 11);
    expect(result.jobs.map((j) => j.id)).toEqual([fine.job.id]);
    expect(result.expired).toEqual([expect.objectContaining({ id: expired.job.id, state: 'discarded', expired_at: iso(T0 + 11) })]);
    expect((await db.driver.jobGet(expired.job.id))!.x.finishedAt).toBe(T0 + 11);
  });

  it('skips paused queues', async () => {
    await db.driver.jobInsert({ jobs: [storedJob('p')], now: T0, nowIso: iso(T0) });
    const paused = await db.driver.queueSetPaused({ name: 'p', paused: true, nowIso: iso(T0 + 1) });
    expect(paused).toEqual({ name: 'p', paused: true, created_at: iso(T0), paused_at: iso(T0 + 1) });
    expect((await claim(['p'], 1)).jobs).toEqual([]);
    await db.driver.queueSetPaused({ name: 'p', paused: false, nowIso: iso(T0 + 2) });
    expect((await claim(['p'], 1)).jobs).toHaveLength(1);
  });

  it('applies a transition only while every guard holds, and reports losers with their state', async () => {
    const stored = storedJob('g');
    await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    const [job] = (await claim(['g'], 1)).jobs;
    const complete = (attempt: number): TransitionOp => ({
      id: job!.id,
      from: allowedFrom('completed', 'ack'),
      to: 'completed',
      expect: { attempt, workerId: 'w1' },
      set: { completed_at: iso(T0 + 5), result: { n: 1 } },
      x: { finishedAt: T0 + 5, visibleUntil: null, timeoutAt: null },
    });
    const stale = await db.driver.jobTransition(complete(7));
    expect(stale).toMatchObject({ ok: false, state: 'active', job: { id: job!.id, state: 'active' } });
    const done = await db.driver.jobTransition(complete(1));
    expect(done).toMatchObject({ ok: true, from: 'active', job: { state: 'completed', result: { n: 1 } } });
    const stored2 = (await db.driver.jobGet(job!.id))!;
    expect(stored2.x.visibleUntil).toBeUndefined();
    expect(stored2.x.finishedAt).toBe(T0 + 5);
    expect(await db.driver.jobTransition(complete(1))).toMatchObject({ ok: false, state: 'completed' });
    expect(await db.driver.jobTransition({ ...complete(1), id: 'nope' })).toEqual({ ok: false, state: null });
  });

  it('tells every loser of a race the state that beat it, not the one its snapshot saw', async () => {
    const peer = db.peer({ events: false });
    for (let round = 0; round < 5; round++) {
      const stored = storedJob('race');
      await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
      await claim(['race'], 1);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? peer : db.driver).jobTransition({ id: stored.job.id, from: ['active'], to: 'completed', expect: { attempt: 1 }, set: { result: i } }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const loser of results.filter((r) => !r.ok)) expect(loser).toMatchObject({ ok: false, state: 'completed' });
    }
  });

  it('keeps args, meta and result exactly as sent (key order, \\u0000, big and tiny numbers), and tells a null result from none', async () => {
    const args = [{ b: 1, a: 2 }, 'nul\u0000byte', 9007199254740991, 1e-7];
    const meta = { z: 1, a: { y: [], x: null } };
    const stored = storedJob('v', { args, meta });
    await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    const [claimed] = (await claim(['v'], 1)).jobs;
    expect(JSON.stringify(claimed!.args)).toBe(JSON.stringify(args));
    expect(JSON.stringify(claimed!.meta)).toBe(JSON.stringify(meta));
    expect(claimed).not.toHaveProperty('result');
    const done = await db.driver.jobTransition({ id: stored.job.id, from: ['active'], to: 'completed', set: { result: null } });
    expect(done).toMatchObject({ ok: true, job: { result: null } });
    expect((await db.driver.jobGet(stored.job.id))!.job).toHaveProperty('result', null);
    const result = { z: [1, { b: 2, a: 0.5 }] };
    await db.driver.jobTransition({ id: stored.job.id, from: ['completed'], to: 'completed', set: { result } });
    expect(JSON.stringify((await db.driver.jobGet(stored.job.id))!.job.result)).toBe(JSON.stringify(result));
    await db.driver.jobTransition({ id: stored.job.id, from: ['completed'], to: 'completed', unset: ['result'] });
    expect((await db.driver.jobGet(stored.job.id))!.job).not.toHaveProperty('result');
  });

  it('refuses an edge the lifecycle table lacks even when `from` allows it', async () => {
    const stored = storedJob('g');
    await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    const result = await db.driver.jobTransition({ id: stored.job.id, from: ['available'], to: 'completed' });
    expect(result).toMatchObject({ ok: false, state: 'available' });
  });

  it('runs many transitions in one call, in op order, with summaries on request', async () => {
    const jobs = [storedJob('m'), storedJob('m'), storedJob('m')];
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    await claim(['m'], 3);
    const ack = (id: string, attempt: number): TransitionOp => ({
      id,
      from: ['active'],
      to: 'completed',
      expect: { attempt },
      set: { completed_at: iso(T0) },
      x: { finishedAt: T0 },
      returning: 'summary',
    });
    const results = await db.driver.jobTransitionMany([ack(jobs[2]!.job.id, 1), ack(jobs[0]!.job.id, 2), ack(jobs[1]!.job.id, 1), ack(jobs[2]!.job.id, 1)]);
    expect(results[0]).toEqual({ ok: true, from: 'active', summary: { id: jobs[2]!.job.id, type: 'test.job', queue: 'm', state: 'completed', attempt: 1 } });
    expect(results[1]).toMatchObject({ ok: false, state: 'active' });
    expect(results[2]).toMatchObject({ ok: true, from: 'active' });
    // The same id twice: the second op sees the first one's result.
    expect(results[3]).toMatchObject({ ok: false, state: 'completed' });
  });

  it('applies to each job its own values when ops of one shape set different ones, and shared ones once', async () => {
    const jobs = [storedJob('v'), storedJob('v'), storedJob('v'), storedJob('v')];
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    await claim(['v'], 4);
    const complete = (id: string, result: unknown, at = iso(T0 + 1)): TransitionOp => ({
      id,
      from: ['active'],
      to: 'completed',
      set: { completed_at: at, result },
      x: { finishedAt: T0 + 1 },
      returning: 'summary',
    });
    // Same shape, different values: each op carries its own.
    const mixed = await db.driver.jobTransitionMany([complete(jobs[0]!.job.id, { a: 1 }), complete(jobs[1]!.job.id, [2], iso(T0 + 2))]);
    expect(mixed.every((r) => r.ok)).toBe(true);
    // Same shape, same values (separate but equal objects): sent once.
    const same = await db.driver.jobTransitionMany([complete(jobs[2]!.job.id, 'r'), complete(jobs[3]!.job.id, 'r')]);
    expect(same.every((r) => r.ok)).toBe(true);
    const stored = await Promise.all(jobs.map((j) => db.driver.jobGet(j.job.id)));
    expect(stored.map((s) => [s!.job.result, s!.job.completed_at, s!.x.finishedAt])).toEqual([
      [{ a: 1 }, iso(T0 + 1), T0 + 1],
      [[2], iso(T0 + 2), T0 + 1],
      ['r', iso(T0 + 1), T0 + 1],
      ['r', iso(T0 + 1), T0 + 1],
    ]);
  });

  it('draws a new FIFO sequence when a job re-enters available', async () => {
    const [a, b] = [storedJob('f'), storedJob('f')];
    await db.driver.jobInsert({ jobs: [a!, b!], now: T0, nowIso: iso(T0) });
    const [claimedA] = (await claim(['f'], 1)).jobs;
    expect(claimedA!.id).toBe(a!.job.id);
    const requeued = await db.driver.jobTransition({ id: a!.job.id, from: ['active'], to: 'available', unset: ['worker_id', 'started_at'] });
    expect(requeued).toMatchObject({ ok: true, job: { state: 'available' } });
    expect((requeued as { job: Record<string, unknown> }).job['worker_id']).toBeUndefined();
    expect((await claim(['f'], 2)).jobs.map((j) => j.id)).toEqual([b!.job.id, a!.job.id]);
  });

  it('extends deadlines on heartbeat for the holding worker only', async () => {
    const stored = storedJob('h');
    await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    await claim(['h'], 1);
    const other = await db.driver.jobHeartbeat({ ids: [stored.job.id, 'ghost'], now: T0 + 10, workerId: 'someone-else' });
    expect(other).toEqual({ extended: [], states: { [stored.job.id]: 'active', ghost: null } });
    const mine = await db.driver.jobHeartbeat({ ids: [stored.job.id], now: T0 + 10, workerId: 'w1' });
    expect(mine.extended).toEqual([{ id: stored.job.id, type: 'test.job', queue: 'h', state: 'active', attempt: 1, visibleUntil: T0 + 30_010, worker_id: 'w1' }]);
  });

  it('a heartbeat skips a job whose row another transaction holds instead of waiting for it (no deadlock with a batched ACK)', async () => {
    const held = storedJob('hb');
    const free = storedJob('hb');
    await db.driver.jobInsert({ jobs: [held, free], now: T0, nowIso: iso(T0) });
    await claim(['hb'], 2);
    const other = await db.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT id FROM "${db.schema}".jobs WHERE id = $1 FOR UPDATE`, [held.job.id]);
      const beat = await Promise.race([
        db.driver.jobHeartbeat({ ids: [held.job.id, free.job.id], now: T0 + 10, workerId: 'w1' }),
        new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 2_000)),
      ]);
      expect(beat).not.toBe('blocked');
      if (beat === 'blocked') return;
      expect(beat.extended.map((e) => e.id)).toEqual([free.job.id]);
      expect(beat.states).toEqual({ [held.job.id]: 'active', [free.job.id]: 'active' });
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    const next = await db.driver.jobHeartbeat({ ids: [held.job.id], now: T0 + 20, workerId: 'w1' });
    expect(next.extended.map((e) => [e.id, e.visibleUntil])).toEqual([[held.job.id, T0 + 30_020]]);
  });

  it('lists overdue active jobs by deadline, promotes, expires and prunes', async () => {
    const a = storedJob('o');
    const scheduled = storedJob('o', { state: 'scheduled' }, { dueAt: T0 + 5 });
    const doomed = storedJob('o', { state: 'scheduled' }, { dueAt: T0 + 50, expiresAt: T0 + 20 });
    await db.driver.jobInsert({ jobs: [a, scheduled, doomed], now: T0, nowIso: iso(T0) });
    await db.driver.jobClaim({ queues: ['o'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0), visibilityMs: 100 });
    expect(await db.driver.jobListOverdue({ now: T0 + 99, limit: 10 })).toEqual([]);
    expect((await db.driver.jobListOverdue({ now: T0 + 100, limit: 10 })).map((s) => s.job.id)).toEqual([a.job.id]);

    const promoted = await db.driver.jobPromote({ now: T0 + 5, nowIso: iso(T0 + 5), limit: 10 });
    expect(promoted.promoted.map((s) => s.id)).toEqual([scheduled.job.id]);
    const expired = await db.driver.jobExpire({ now: T0 + 21, nowIso: iso(T0 + 21), limit: 10 });
    expect(expired.map((j) => [j.id, j.state])).toEqual([[doomed.job.id, 'discarded']]);

    expect(await db.driver.jobCounts({ queue: 'o' })).toMatchObject({ active: 1, available: 1, discarded: 1, scheduled: 0 });
    expect(await db.driver.jobPrune({ before: T0 + 21, limit: 10 })).toBe(0);
    expect(await db.driver.jobPrune({ before: T0 + 22, limit: 10 })).toBe(1);
    expect(await db.driver.jobGet(doomed.job.id)).toBeNull();
  });

  it('prunes dead-lettered jobs only when asked to', async () => {
    const dead = storedJob('d', { state: 'discarded' }, { deadLetter: true, finishedAt: T0 });
    const done = storedJob('d', { state: 'completed' }, { finishedAt: T0 });
    await db.driver.jobInsert({ jobs: [dead, done], now: T0, nowIso: iso(T0) });
    expect(await db.driver.jobPrune({ before: T0 + 1, limit: 10 })).toBe(1);
    expect(await db.driver.jobGet(dead.job.id)).not.toBeNull();
    expect(await db.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).toEqual({ jobs: [dead.job], total: 1 });
    expect(await db.driver.jobPrune({ before: T0 + 1, limit: 10, deadLetter: true })).toBe(1);
  });

  it('lists newest first with a total, and deletes under guards', async () => {
    const jobs = Array.from({ length: 5 }, () => storedJob('l'));
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    const page = await db.driver.jobList({ queue: 'l', limit: 2, offset: 1 });
    expect(page.total).toBe(5);
    expect(page.jobs.map((j) => j.id)).toEqual([jobs[3]!.job.id, jobs[2]!.job.id]);
    expect(await db.driver.jobList({ queue: 'l', limit: 2, offset: 10 })).toEqual({ jobs: [], total: 5 });
    expect(await db.driver.jobDelete({ id: jobs[0]!.job.id, expect: { states: ['completed'] } })).toBeNull();
    expect(await db.driver.jobDelete({ id: jobs[0]!.job.id, expect: { states: ['available'] } })).toEqual(jobs[0]!.job);
  });

  it('enforces unique keys: reject, ignore, replace, replace_except_schedule', async () => {
    const unique = (policy: 'reject' | 'ignore' | 'replace' | 'replace_except_schedule', job = {}) =>
      storedJob('u', job, { uniqueKey: `k-${policy}`, uniqueStates: ['available', 'scheduled', 'active'], uniqueOnConflict: policy });
    const ins = (...jobs: ReturnType<typeof unique>[]) => db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });

    const first = unique('reject');
    await ins(first);
    expect(await ins(unique('reject'))).toMatchObject({ ok: false, index: 0, reason: 'unique', existing: { id: first.job.id } });

    const kept = unique('ignore');
    expect(await ins(kept, unique('ignore'))).toMatchObject({ ok: true, outcomes: [{ status: 'inserted' }, { status: 'existing', job: { id: kept.job.id } }] });

    const old = unique('replace');
    await ins(old);
    const result = await ins(unique('replace'));
    expect(result).toMatchObject({ ok: true, outcomes: [{ status: 'inserted', replaced: { id: old.job.id, state: 'cancelled', cancelled_at: iso(T0) } }] });
    expect((await db.driver.jobGet(old.job.id))!.x.finishedAt).toBe(T0);

    const sched = unique('replace_except_schedule', { state: 'scheduled', scheduled_at: iso(T0 + 60_000) });
    sched.x.dueAt = T0 + 60_000;
    await ins(sched);
    const next = unique('replace_except_schedule');
    const r2 = await ins(next);
    expect(r2).toMatchObject({ ok: true, outcomes: [{ job: { state: 'scheduled', scheduled_at: iso(T0 + 60_000) } }] });
    expect((await db.driver.jobGet(next.job.id))!.x.dueAt).toBe(T0 + 60_000);
  });

  it('lets exactly one of many concurrent inserts with the same unique key win (strong uniqueness)', async () => {
    const peer = db.peer({ events: false });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? peer : db.driver).jobInsert({
          jobs: [storedJob('ur', {}, { uniqueKey: 'same', uniqueStates: ['available'], uniqueOnConflict: 'reject' })],
          now: T0,
          nowIso: iso(T0),
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(await db.driver.jobCounts({ queue: 'ur' })).toMatchObject({ available: 1 });
  });

  it('keeps workers, crons, workflows and leases', async () => {
    const worker = await db.driver.workerRecord({ id: 'w', state: 'running', last_heartbeat_at: iso(T0), lastHeartbeatMs: T0, active_job_ids: ['a'] });
    expect(worker.directive).toBe('running');
    await db.driver.workerSetDirective({ id: 'w', directive: 'quiet', nowIso: iso(T0), now: T0 });
    expect(await db.driver.workerRecord({ id: 'w', state: 'running', last_heartbeat_at: iso(T0 + 1), lastHeartbeatMs: T0 + 1, active_job_ids: [] })).toMatchObject({ directive: 'quiet', lastHeartbeatMs: T0 + 1 });
    expect(await db.driver.workerSetDirective({ id: 'new', directive: 'terminate', nowIso: iso(T0), now: T0 })).toMatchObject({ id: 'new', directive: 'terminate' });
    expect((await db.driver.workerList()).map((w) => w.id)).toEqual(['new', 'w']);
    await db.driver.workerDelete('new');
    expect(await db.driver.workerList()).toHaveLength(1);

    const cron = {
      name: 'c', expression: '* * * * *', timezone: 'UTC', overlap_policy: 'allow' as const, enabled: true,
      job_template: { type: 't', args: [] }, created_at: iso(T0), next_run_at: iso(T0 + 60_000), last_run_at: null, run_count: 0, nextRunMs: T0 + 60_000,
    };
    expect(await db.driver.cronUpsert(cron)).toEqual({ created: true });
    expect(await db.driver.cronUpsert(cron)).toEqual({ created: false });
    const advance = () => db.driver.cronAdvance({ name: 'c', expectNextRunMs: T0 + 60_000, patch: { nextRunMs: T0 + 120_000, run_count: 1 } });
    const raced = await Promise.all([advance(), advance(), advance()]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await db.driver.cronGet('c')).toMatchObject({ nextRunMs: T0 + 120_000, run_count: 1 });
    expect(await db.driver.cronDelete('c')).toMatchObject({ name: 'c' });
    expect(await db.driver.cronList()).toEqual([]);

    const member = storedJob('wf', { state: 'pending', workflow_id: 'wf1' });
    expect(await db.driver.workflowSave({ workflow: { id: 'wf1', version: 1 }, expectVersion: null, insert: [member], now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await db.driver.workflowSave({ workflow: { id: 'wf1', version: 1 }, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(false);
    expect(await db.driver.workflowSave({ workflow: { id: 'wf1', version: 2, step: 'b' }, expectVersion: 1, insert: [member], now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await db.driver.workflowSave({ workflow: { id: 'wf1', version: 3 }, expectVersion: 1, now: T0, nowIso: iso(T0) })).toBe(false);
    expect(await db.driver.workflowGet('wf1')).toEqual({ id: 'wf1', version: 2, step: 'b' });
    expect(await db.driver.jobCounts({ queue: 'wf' })).toMatchObject({ pending: 1 });

    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'a', ttlMs: 100, now: T0 })).toBe(true);
    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'b', ttlMs: 100, now: T0 + 50 })).toBe(false);
    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'a', ttlMs: 100, now: T0 + 50 })).toBe(true);
    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'b', ttlMs: 100, now: T0 + 150 })).toBe(true);
    await db.driver.leaseRelease({ name: 'l', owner: 'a' });
    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'a', ttlMs: 100, now: T0 + 160 })).toBe(false);
    await db.driver.leaseRelease({ name: 'l', owner: 'b' });
    expect(await db.driver.leaseAcquire({ name: 'l', owner: 'a', ttlMs: 100, now: T0 + 160 })).toBe(true);

    await db.driver.reset();
    expect(await db.driver.jobCounts({})).toMatchObject({ pending: 0 });
    expect(await db.driver.queueList()).toEqual([]);
  });
});
