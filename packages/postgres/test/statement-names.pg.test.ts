/** Prepared statement names stay distinct whatever the schema's name (PostgreSQL keeps only 63 bytes of one). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../src/migrate.js';
import { PostgresDriver } from '../src/postgres-driver.js';
import { DATABASE_URL, HAVE_PG } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';

describe.runIf(HAVE_PG)('a schema with the longest name allowed (48 characters)', () => {
  it('runs statements whose names share their first 63 bytes on one connection', async () => {
    const schema = `ojs_long_${randomBytes(5).toString('hex')}`.padEnd(48, '_');
    expect(schema).toHaveLength(48);
    // One connection: every statement is prepared on it, so two names cut to the same 63 bytes would clash.
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    try {
      await migrate({ pool, schema });
      const driver = new PostgresDriver({ pool, schema, events: false });
      const jobs = [storedJob('q'), storedJob('q')];
      expect((await driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) })).ok).toBe(true);
      // jobInsert's unique-key statements (jobInsert.lockUniqueKeys, .findConflicts) share jobInsert's first bytes.
      const unique = storedJob('q', {}, { uniqueKey: 'k', uniqueStates: ['available'] });
      expect((await driver.jobInsert({ jobs: [unique], now: T0, nowIso: iso(T0) })).ok).toBe(true);
      const claimed = await driver.jobClaim({ queues: ['q'], limit: 3, workerId: 'w1', now: T0 + 1, nowIso: iso(T0 + 1) });
      expect(claimed.jobs).toHaveLength(3);
      const [a, b, c] = claimed.jobs;
      // Two shapes of transition statements (their names differ only in a hash at the end), then one that loses
      // (jobTransitionMany.losers).
      const done = await driver.jobCompleteMany({ jobs: [{ id: a!.id, attempt: 1 }], now: T0 + 2, nowIso: iso(T0 + 2) });
      const failed = await driver.jobFailMany({
        jobs: [
          { id: b!.id, outcome: 'discard', attempt: 1 },
          { id: a!.id, outcome: 'discard', attempt: 1 },
        ],
        now: T0 + 2,
        nowIso: iso(T0 + 2),
      });
      expect([done[0]!.ok, failed[0]!.ok]).toEqual([true, true]);
      expect(failed[1]).toMatchObject({ ok: false, state: 'completed' });
      expect((await driver.jobGet(c!.id))!.job.state).toBe('active');
      expect((await driver.jobList({ queue: 'q', limit: 10, offset: 0 })).total).toBe(3);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });
});
