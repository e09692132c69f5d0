/** Bloat control: retention pruning through the engine's pruner, and planner statistics kept fresh. */
import { Engine } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';
import { DAY_MS, ensurePartitions, listPartitions, partitionName } from '../src/finished-partitions.js';

describe.runIf(HAVE_PG)('maintenance', () => {
  let db: TestDatabase;
  afterEach(async () => {
    await db.drop();
  });

  it('prunes finished jobs once their retention has passed, keeping the rest', async () => {
    db = await openTestDatabase({ events: false });
    const clock = new ManualClock();
    const engine = new Engine({
      driver: db.driver,
      clock,
      retention: { completedMs: 60_000, cancelledMs: 60_000, discardedMs: 60_000, deadLetterMs: 600_000 },
    });
    const { jobs } = await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, (_, i) => ({ type: 'test.prune', queue: 'prune', args: [i] })) });
    const { jobs: claimed } = await engine.fetch({ queues: ['prune'], count: 3, worker_id: 'w' });
    await engine.ackMany({ acks: claimed.map((j) => ({ job_id: j.id })) });
    await engine.cancelJob(jobs[4]!.id);

    clock.advance(59_000);
    await engine.runMaintenance();
    expect(await db.driver.jobCounts({ queue: 'prune' })).toMatchObject({ completed: 3, cancelled: 1, available: 1 });

    clock.advance(2_000);
    await engine.runMaintenance();
    expect(await db.driver.jobCounts({ queue: 'prune' })).toMatchObject({ completed: 0, cancelled: 0, available: 1 });
    for (const job of claimed) await expect(engine.getJob(job.id)).rejects.toMatchObject({ code: 'not_found' });
    await engine.stop();
  });

  it('refreshes planner statistics after enough inserts, in the background', async () => {
    db = await openTestDatabase({ events: false, analyzeAfterInserts: 50 });
    // ANALYZE sets pg_class.reltuples (transactionally; autovacuum would wait for 1 000 changed rows here).
    const estimate = async (): Promise<number> => {
      const { rows } = await db.pool.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass`, [`"${db.schema}".jobs`]);
      return rows[0]!.n;
    };
    const initial = await estimate();
    await db.driver.jobInsert({ jobs: Array.from({ length: 30 }, () => storedJob('stats')), now: T0, nowIso: iso(T0) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await estimate()).toBe(initial); // under the threshold: not analyzed yet
    await db.driver.jobInsert({ jobs: Array.from({ length: 30 }, () => storedJob('stats')), now: T0, nowIso: iso(T0) });
    const deadline = Date.now() + 10_000;
    while ((await estimate()) !== 60) {
      if (Date.now() > deadline) throw new Error(`statistics not refreshed: reltuples ${await estimate()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('keeps finished jobs in day partitions: created ahead, dropped whole past the retention; dead letters stay', async () => {
    db = await openTestDatabase({ events: false });
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const names = async () => (await listPartitions(db.pool, db.schema)).map((p) => p.name).sort();
    // migrate() made today's partition and the next two.
    expect(await names()).toEqual([0, 1, 2].map((k) => partitionName(today + k * DAY_MS)));

    const where = async (id: string) =>
      (await db.pool.query<{ t: string }>(`SELECT tableoid::regclass::text AS t FROM "${db.schema}".jobs_finished WHERE id = $1`, [id])).rows[0]?.t;
    const now = Date.now();
    const done = storedJob('parts', { state: 'completed' }, { finishedAt: now });
    const dead = storedJob('parts', { state: 'discarded' }, { finishedAt: now, deadLetter: true });
    const ancient = storedJob('parts', { state: 'cancelled' }, { finishedAt: T0 });
    const later = storedJob('parts', { state: 'completed' }, { finishedAt: today + 5 * DAY_MS + 1 });
    await db.driver.jobInsert({ jobs: [done, dead, ancient, later], now, nowIso: iso(now) });
    expect(await where(done.job.id)).toBe(`"${db.schema}".${partitionName(today)}`.replace(`"${db.schema}"`, db.schema));
    expect(await where(dead.job.id)).toBe(`${db.schema}.jobs_dead_letter`);
    expect(await where(ancient.job.id)).toBe(`${db.schema}.jobs_done_default`);
    expect(await where(later.job.id)).toBe(`${db.schema}.jobs_done_default`);

    // A partition created over rows of the default one takes them along.
    await ensurePartitions(db.pool, db.schema, today, { widthMs: DAY_MS, ahead: 5 });
    expect(await where(later.job.id)).toBe(`${db.schema}.${partitionName(today + 5 * DAY_MS)}`);

    // Past today's end: today's partition goes whole, the default one row by row, the dead letter stays.
    expect(await db.driver.jobPrune({ before: today + DAY_MS, limit: 100 })).toBe(2);
    expect(await names()).not.toContain(partitionName(today - DAY_MS));
    for (const gone of [done, ancient]) expect(await db.driver.jobGet(gone.job.id)).toBeNull();
    expect((await db.driver.jobGet(dead.job.id))?.job.state).toBe('discarded');
    expect((await db.driver.jobGet(later.job.id))?.job.state).toBe('completed');
    // The pruner keeps today's partition and the next ones in place (here: made again).
    expect(await names()).toContain(partitionName(today));
    // The dead-letter retention prunes dead letters row by row.
    expect(await db.driver.jobPrune({ before: now + 1, limit: 100, deadLetter: true })).toBe(1);
    expect(await db.driver.jobGet(dead.job.id)).toBeNull();
  });

  it('makes a schema with partitions narrower than a minute, named apart, and the pruner drops them whole (a retention of seconds)', async () => {
    const plan = { widthMs: 5_000, ahead: 2 };
    db = await openTestDatabase({ events: false, finishedPartitions: plan });
    const narrow = await listPartitions(db.pool, db.schema);
    expect(narrow).toHaveLength(3);
    expect(new Set(narrow.map((p) => p.name)).size).toBe(3);
    for (const p of narrow) expect(p.to - p.from).toBe(plan.widthMs);
    const now = Date.now();
    const done = storedJob('narrow', { state: 'completed' }, { finishedAt: now });
    await db.driver.jobInsert({ jobs: [done], now, nowIso: iso(now) });
    const partition = narrow.find((p) => p.from <= now && now < p.to)!;
    expect(await db.driver.jobPrune({ before: partition.to, limit: 100 })).toBe(1);
    // (The partition holding now is made again at once when the clock is still in its range: it is empty.)
    expect(await db.driver.jobGet(done.job.id)).toBeNull();
  });
});
