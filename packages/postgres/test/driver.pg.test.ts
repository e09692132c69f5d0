/**
 * What only the PostgreSQL driver has to get right beyond the shared driver suite (`driver-contract.pg.test.ts`,
 * which covers every primitive, the races and the transition table): the envelope read back from columns in
 * the protocol's key order, values stored as sent through the insert's column arrays, and heartbeats that skip
 * a row another transaction holds instead of waiting.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';

describe.runIf(HAVE_PG)('PostgresDriver (PostgreSQL only)', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await openTestDatabase({ events: false });
  });
  afterEach(async () => {
    await db.drop();
  });

  const claim = (queues: string[], limit: number, now = T0, workerId = 'w1') => db.driver.jobClaim({ queues, limit, workerId, now, nowIso: iso(now) });

  it('reads the envelope back from its columns with the protocol fields first, in order', async () => {
    const stored = storedJob('q', { meta: { trace: 'abc' }, tags: ['t'] });
    await db.driver.jobInsert({ jobs: [stored], now: T0, nowIso: iso(T0) });
    expect(Object.keys((await db.driver.jobGet(stored.job.id))!.job).slice(0, 4)).toEqual(['specversion', 'id', 'type', 'queue']);
    expect(Object.keys((await claim(['q'], 1)).jobs[0]!).slice(0, 4)).toEqual(['specversion', 'id', 'type', 'queue']);
  });

  it('stores every value as sent through the column arrays: quotes, backslashes, braces, NULL as text, sparse columns', async () => {
    const awkward = 'a "quoted" \\ back\\slash, {braced} NULL \u00e9\n';
    const jobs = [
      storedJob(
        'q',
        { type: awkward, meta: { note: awkward, nul: '\u0000' }, tags: [awkward], worker_id: 'NULL' } as never,
        { uniqueKey: awkward, uniqueStates: ['available', awkward] as never, extra: { deep: [awkward] } } as never,
      ),
      storedJob('q', { args: [null, 'NULL', ''], unknown_attribute: { a: 1 } } as never),
      storedJob('q', { state: 'completed', result: null, completed_at: iso(T0) } as never, { deadLetter: false, finishedAt: T0 }),
    ];
    await db.driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) });
    for (const stored of jobs) expect(await db.driver.jobGet(stored.job.id)).toEqual(stored);
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
});
