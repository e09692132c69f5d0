/**
 * Upgrading a database made by the previous migration set (0001 and its lifecycle trigger, where finished jobs
 * stayed in `jobs`): a job in every state, dead-lettered ones too, is still there after `migrate()`, byte for
 * byte, each in the table its state now belongs to, and the engine carries on with them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Engine } from '@ojskit/core';
import { JOB_STATES, TERMINAL_STATES, type StoredJob } from '@ojskit/core/driver';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOf } from '../src/job-row.js';
import { migrate } from '../src/migrate.js';
import { PostgresDriver } from '../src/postgres-driver.js';
import { renderSql, templateValues } from '../src/sql-template.js';
import { DATABASE_URL, HAVE_PG, uniqueSchema } from './support/database.js';
import { iso, storedJob, T0 } from './support/jobs.js';

const OLD = new URL('./fixtures/migrations-0001/', import.meta.url);
const old = (file: string) => readFileSync(new URL(file, OLD), 'utf8');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What migrate() of the previous version did: 0001, then the lifecycle, each recorded with its checksum. */
async function migratePrevious(pool: pg.Pool, schema: string): Promise<void> {
  const values = templateValues(schema);
  await pool.query(`CREATE SCHEMA ${values.schema}`);
  await pool.query(`CREATE TABLE ${values.schema}.ojskit_migrations (
    version text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const [version, file] of [
    ['0001_init', '0001_init.sql'],
    ['lifecycle', 'lifecycle.sql'],
  ] as const) {
    const text = renderSql(old(file), values);
    await pool.query(text);
    await pool.query(`INSERT INTO ${values.schema}.ojskit_migrations (version, checksum) VALUES ($1, $2)`, [version, sha256(text)]);
  }
}

describe.runIf(HAVE_PG)('upgrade from the previous migration set', () => {
  let pool: pg.Pool;
  const schema = uniqueSchema('ojs_u');
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('keeps every job, each in its table, and the engine carries on', async () => {
    await migratePrevious(pool, schema);
    const now = Date.now();
    // A job in every state; finished ones at several ages, one dead-lettered, one with no finish time.
    const jobs: StoredJob[] = JOB_STATES.map((state) =>
      storedJob(
        'upgrade',
        { state, ...(state === 'active' ? { attempt: 1, worker_id: 'w' } : {}) },
        TERMINAL_STATES.includes(state) ? { finishedAt: now - 3_600_000 } : {},
      ),
    );
    const dead = storedJob(
      'upgrade',
      { state: TERMINAL_STATES.find((s) => s === 'discarded')!, error: { code: 'boom', message: 'x', type: 'Error', attempt: 1, occurred_at: iso(now) } },
      { finishedAt: now - 86_400_000 * 30, deadLetter: true },
    );
    const old = TERMINAL_STATES.map((state) => storedJob('upgrade', { state, result: { kept: '\u0000 as sent', z: 1, a: 2 } as never }, { finishedAt: T0 }));
    const unfinishedTime = storedJob('upgrade', { state: TERMINAL_STATES[0]! });
    const all = [...jobs, dead, ...old, unfinishedTime];
    await pool.query(renderSql(old0001Insert(), templateValues(schema)), [JSON.stringify(all.map(recordOf)), iso(now)]);
    const before = await rows(pool, `SELECT * FROM "${schema}".jobs`);
    expect(before).toHaveLength(all.length);

    expect(await migrate({ pool, schema })).toEqual({
      schema,
      applied: [
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

    const hot = await rows(pool, `SELECT * FROM "${schema}".jobs`);
    const finished = await rows(pool, `SELECT * FROM "${schema}".jobs_finished`);
    // 0006 adds the history columns, empty for the jobs stored before it (spec/history.md H8)
    const withoutHistory = ({ history, history_dropped, ...row }: Record<string, unknown>) => {
      expect([history, history_dropped]).toEqual([null, null]);
      return row;
    };
    expect([...hot, ...finished].map(withoutHistory).sort(byId)).toEqual(before.sort(byId));
    for (const row of hot) expect(TERMINAL_STATES).not.toContain(row['state']);
    for (const row of finished) expect(TERMINAL_STATES).toContain(row['state']);
    const inDeadLetter = await rows(pool, `SELECT id FROM "${schema}".jobs_dead_letter`);
    expect(inDeadLetter.map((r) => r['id'])).toEqual([dead.job.id]);

    const driver = new PostgresDriver({ pool, schema, events: false });
    const engine = new Engine({ driver });
    for (const stored of all) expect((await engine.getJob(stored.job.id)).job).toEqual(stored.job);
    expect((await engine.listDeadLetter()).jobs.map((j) => j.id)).toEqual([dead.job.id]);
    const counts = await driver.jobCounts({ queue: 'upgrade' });
    for (const state of JOB_STATES) expect(counts[state]).toBe(all.filter((s) => s.job.state === state).length);

    // The dead-lettered job comes back to the hot table; the available ones are claimed and finish.
    await engine.retryDeadLetter(dead.job.id);
    expect(await rows(pool, `SELECT id FROM "${schema}".jobs WHERE id = $1`, [dead.job.id])).toHaveLength(1);
    const { jobs: claimed } = await engine.fetch({ queues: ['upgrade'], count: 10, worker_id: 'w2' });
    expect(claimed.map((j) => j.id).sort()).toEqual([jobs.find((s) => s.job.state === 'available')!.job.id, dead.job.id].sort());
    await engine.ackMany({ acks: claimed.map((j) => ({ job_id: j.id })) });
    expect(await rows(pool, `SELECT id FROM "${schema}".jobs WHERE id = ANY ($1)`, [claimed.map((j) => j.id)])).toHaveLength(0);
    for (const job of claimed) expect((await engine.getJob(job.id)).job.state).toBe('completed');
    await driver.close();
  });
});

function old0001Insert(): string {
  return old('jobInsert.sql');
}

async function rows(pool: pg.Pool, text: string, values: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  // Every column, json ones as stored (row_to_json embeds their text; jsonb would refuse \u0000).
  const { rows: found } = await pool.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM (${text}) t`, values);
  return found.map((f) => JSON.parse(f.r) as Record<string, unknown>);
}

function byId(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return String(a['id']) < String(b['id']) ? -1 : 1;
}
