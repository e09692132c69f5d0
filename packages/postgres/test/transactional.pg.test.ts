/** Transactional enqueue: the job commits or rolls back with the caller's own writes. */
import { Engine, OjsError } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import type { PoolClient } from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';

describe.runIf(HAVE_PG)('transactional enqueue', () => {
  let db: TestDatabase;
  let engine: Engine;
  let client: PoolClient;
  beforeEach(async () => {
    db = await openTestDatabase();
    engine = new Engine({ driver: db.driver, clock: new ManualClock() });
    await db.pool.query(`CREATE TABLE "${db.schema}".orders (id text PRIMARY KEY)`);
    client = await db.pool.connect();
  });
  afterEach(async () => {
    client.release();
    await engine.stop();
    await db.drop();
  });

  const orders = async (): Promise<string[]> => (await db.pool.query(`SELECT id FROM "${db.schema}".orders`)).rows.map((r) => r.id);

  it('advertises the capability', () => {
    expect(db.driver.capabilities.transactionalEnqueue).toBe(true);
  });

  it('commit: the job exists together with the caller’s row, and is claimable', async () => {
    await client.query('BEGIN');
    await client.query(`INSERT INTO "${db.schema}".orders VALUES ('o-1')`);
    const { job } = await engine.enqueue({ type: 'order.confirm', queue: 'tx', args: ['o-1'] }, { tx: client });
    // Invisible to everyone else until the commit.
    await expect(engine.getJob(job.id)).rejects.toMatchObject({ code: 'not_found' });
    await client.query('COMMIT');
    expect(await orders()).toEqual(['o-1']);
    expect((await engine.getJob(job.id)).job.state).toBe('available');
    const fetched = await engine.fetch({ queues: ['tx'], worker_id: 'w' });
    expect(fetched.jobs.map((j) => j.id)).toEqual([job.id]);
  });

  it('rollback: neither the job nor the caller’s row exists', async () => {
    await client.query('BEGIN');
    await client.query(`INSERT INTO "${db.schema}".orders VALUES ('o-2')`);
    const { jobs } = await engine.enqueueBatch(
      {
        jobs: [
          { type: 'a', queue: 'tx', args: [] },
          { type: 'b', queue: 'tx', args: [], options: { unique: { keys: ['queue'] } } },
        ],
      },
      { tx: client },
    );
    await client.query('ROLLBACK');
    expect(await orders()).toEqual([]);
    for (const job of jobs) await expect(engine.getJob(job.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await engine.fetch({ queues: ['tx'], worker_id: 'w' })).jobs).toEqual([]);
  });

  it('events follow the transaction: a rolled-back enqueue emits nothing, a committed one is seen', async () => {
    const seen: string[] = [];
    const unsubscribe = engine.subscribe({ types: ['job.*'] }, (e) => seen.push(String(e.data.job_id)));
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    try {
      await client.query('BEGIN');
      const rolledBack = await engine.enqueue({ type: 'a', queue: 'tx', args: [] }, { tx: client });
      await client.query('ROLLBACK');
      await settle();
      expect(seen).not.toContain(rolledBack.job.id);

      await client.query('BEGIN');
      const committed = await engine.enqueue({ type: 'a', queue: 'tx', args: [] }, { tx: client });
      await settle();
      expect(seen).not.toContain(committed.job.id);
      await client.query('COMMIT');
      await settle();
      expect(seen).toContain(committed.job.id);
    } finally {
      unsubscribe();
    }
  });

  it('a refused insert leaves the caller’s transaction usable (it runs behind a savepoint)', async () => {
    const { job } = await engine.enqueue({ type: 'a', queue: 'tx', args: [] });
    await client.query('BEGIN');
    await client.query(`INSERT INTO "${db.schema}".orders VALUES ('o-3')`);
    const duplicate = engine.enqueue({ id: job.id, type: 'a', queue: 'tx', args: [] }, { tx: client });
    await expect(duplicate).rejects.toBeInstanceOf(OjsError);
    await expect(duplicate).rejects.toMatchObject({ code: 'duplicate' });
    await client.query('COMMIT');
    expect(await orders()).toEqual(['o-3']);
  });

  it('refuses a tx that is not a pg client', async () => {
    await expect(db.driver.jobInsert({ jobs: [], now: 0, nowIso: new Date(0).toISOString(), tx: {} })).rejects.toThrow(/pg client/);
  });
});
