/** Bloat control: retention pruning through the engine's pruner, and planner statistics kept fresh. */
import { Engine, ManualClock } from '@ojskit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';

describe.runIf(HAVE_PG)('maintenance', () => {
  let db: TestDatabase;
  afterEach(async () => {
    await db.drop();
  });

  it('prunes finished jobs once their retention has passed, keeping the rest', async () => {
    db = await openTestDatabase({ events: false });
    const clock = new ManualClock();
    const engine = new Engine({ driver: db.driver, clock, retention: { completedMs: 60_000, cancelledMs: 60_000, discardedMs: 60_000, deadLetterMs: 600_000 } });
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
});
