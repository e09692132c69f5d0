/** Migrations: idempotent, concurrent-safe, rendered from core's lifecycle; the trigger's second line of defence; the CLI. */
import { JOB_STATES, TRANSITIONS } from '@ojskit/core/driver';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { migrate } from '../src/migrate.js';
import { legalPairs } from '../src/sql-template.js';
import { DATABASE_URL, HAVE_PG, uniqueSchema } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';
import { PostgresDriver } from '../src/postgres-driver.js';

describe.runIf(HAVE_PG)('migrate()', () => {
  let pool: pg.Pool;
  const schemas: string[] = [];
  const fresh = (): string => {
    const schema = uniqueSchema('ojs_m');
    schemas.push(schema);
    return schema;
  };
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
  });
  afterAll(async () => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('applies every migration once, then finds nothing to do', async () => {
    const schema = fresh();
    expect(await migrate({ pool, schema })).toEqual({
      schema,
      applied: [
        '0001_init',
        '0002_finished_jobs',
        '0003_queue_config',
        '0004_event_log',
        '0005_rate_limits',
        '0006_job_history',
        '0007_queue_history_opt_out',
        '0008_dispatched_claim',
        '0009_dispatched_rate_limits',
      ],
      lifecycleUpdated: true,
    });
    expect(await migrate({ pool, schema })).toEqual({ schema, applied: [], lifecycleUpdated: false });
    const { rows } = await pool.query(`SELECT version FROM "${schema}".ojskit_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual([
      '0001_init',
      '0002_finished_jobs',
      '0003_queue_config',
      '0004_event_log',
      '0005_rate_limits',
      '0006_job_history',
      '0007_queue_history_opt_out',
      '0008_dispatched_claim',
      '0009_dispatched_rate_limits',
      'lifecycle',
    ]);
  });

  it('is safe to run from many processes at once (advisory lock)', async () => {
    const schema = fresh();
    const results = await Promise.all(Array.from({ length: 4 }, () => migrate({ pool, schema })));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
  });

  it('renders the state CHECK from JOB_STATES and the trigger from TRANSITIONS', async () => {
    const schema = fresh();
    await migrate({ pool, schema });
    const check = await pool.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'jobs_state_check' AND conrelid = $1::regclass`,
      [`"${schema}".jobs`],
    );
    for (const state of JOB_STATES) expect(check.rows[0]!.def).toContain(`'${state}'`);
    const fn = await pool.query<{ src: string }>(
      `SELECT prosrc AS src FROM pg_proc WHERE proname = 'jobs_refuse_illegal_transition' AND pronamespace = $1::regnamespace`,
      [schema],
    );
    const pairs = legalPairs();
    expect(pairs.length).toBe(new Set(TRANSITIONS.filter((t) => t.from !== null).map((t) => `${t.from}>${t.to}`)).size);
    for (const pair of pairs) expect(fn.rows[0]!.src).toContain(`'${pair}'`);
  });

  it('refuses an unknown state and an illegal edge written by hand, and allows legal ones', async () => {
    const schema = fresh();
    await migrate({ pool, schema });
    const driver = new PostgresDriver({ pool, schema, events: false });
    const active = storedJob('q', { state: 'active', attempt: 1 });
    await driver.jobInsert({ jobs: [active], now: T0, nowIso: iso(T0) });
    const setState = (table: string, id: string, state: string) => pool.query(`UPDATE "${schema}".${table} SET state = $2::text WHERE id = $1`, [id, state]);
    await expect(setState('jobs', active.job.id, 'pending')).rejects.toThrow(/illegal transition active -> pending/);
    await expect(setState('jobs', active.job.id, 'exploded')).rejects.toThrow(/illegal transition|jobs_state_check/);
    // A finished state never lives in the hot table, and the finished table holds nothing else.
    await expect(setState('jobs', active.job.id, 'completed')).rejects.toThrow(/jobs_unfinished_check/);
    const done = storedJob('q', { state: 'completed' }, { finishedAt: T0 });
    await driver.jobInsert({ jobs: [done], now: T0, nowIso: iso(T0) });
    expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".jobs_finished WHERE id = $1`, [done.job.id])).rows[0].n).toBe(1);
    await expect(setState('jobs_finished', done.job.id, 'active')).rejects.toThrow(/jobs_finished_state_check/);
    // A move between the tables along an edge the table lacks is refused by the finished table's trigger.
    const moved = (
      await pool.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'jobs' ORDER BY ordinal_position`, [schema])
    ).rows.map((r) => r.column_name as string);
    await expect(
      pool.query(
        `WITH gone AS (DELETE FROM "${schema}".jobs WHERE id = $1 RETURNING *)
                  INSERT INTO "${schema}".jobs_finished (${moved.join(', ')})
                  SELECT ${moved.map((c) => (c === 'state' ? `'completed'` : c === 'prev_state' ? `'pending'` : c)).join(', ')} FROM gone`,
        [active.job.id],
      ),
    ).rejects.toThrow(/illegal transition pending -> completed/);
    await expect(setState('jobs', active.job.id, 'available')).resolves.toMatchObject({ rowCount: 1 });
  });

  it('migrates from the command line', async () => {
    const schema = fresh();
    const log: string[] = [];
    const original = console.log;
    console.log = (line: string) => void log.push(line);
    try {
      expect(await main(['migrate', '--url', DATABASE_URL, '--schema', schema])).toBe(0);
      expect(await main(['migrate', '--url', `${DATABASE_URL}?schema=${schema}`])).toBe(0);
    } finally {
      console.log = original;
    }
    expect(log).toEqual([
      `ojskit-postgres: schema "${schema}" applied 0001_init, 0002_finished_jobs, 0003_queue_config, 0004_event_log, 0005_rate_limits, 0006_job_history, 0007_queue_history_opt_out, 0008_dispatched_claim, 0009_dispatched_rate_limits; lifecycle constraint and trigger installed`,
      `ojskit-postgres: schema "${schema}" up to date`,
    ]);
  });

  it('rejects bad command lines with usage and exit code 2', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (line: string) => void errors.push(line);
    try {
      expect(await main(['frobnicate', '--url', DATABASE_URL])).toBe(2);
      expect(await main(['migrate', '--url', 'mysql://x'])).toBe(2);
      expect(await main(['migrate', '--url', DATABASE_URL, '--schema', 'Bad-Name'])).toBe(2);
      expect(await main(['migrate'], {})).toBe(2);
    } finally {
      console.error = original;
    }
    expect(errors.join('\n')).toMatch(/unknown command[\s\S]*postgres:\/\/[\s\S]*--schema must be[\s\S]*--url \(or DATABASE_URL\) is required/);
  });
});
