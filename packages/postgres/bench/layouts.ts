/**
 * What other storage layouts would cost PostgreSQL per processed job, against `pnpm bench:sql-cost` (this
 * package's layout, same footing: one connection, claims of 250 each completed at once, the backend's own CPU
 * from /proc and the WAL it wrote). Bare statements, without this package's guards, trigger, promotion and
 * events: a floor for each design, to weigh a storage redesign (BENCHMARKS.md, "What 1.5× would take"), not a driver.
 *   - delete on completion: graphile-worker's shape (no retention of finished jobs);
 *   - delete + archive insert: completed jobs moved to a table with only a primary key;
 *   - narrow hot row + body table: the columns claims and completions change in a row of their own.
 *
 * Usage: pnpm bench:layouts  (env: DATABASE_URL, BENCH_JOBS=40000)
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const N = Number(process.env['BENCH_JOBS'] ?? 40_000);
const B = 250;
const c = new pg.Client({ connectionString: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test' });
await c.connect();
const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const cpu = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
const lsn = async () => (await c.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
const wal = async (a: string, b: string) => Number((await c.query('SELECT pg_wal_lsn_diff($2::pg_lsn,$1::pg_lsn) AS d', [a, b])).rows[0].d);
const S = `layouts_${randomBytes(3).toString('hex')}`;
await c.query(`CREATE SCHEMA ${S}`);
await c.query(`CREATE TABLE ${S}.b (priority int NOT NULL, seq bigint NOT NULL, attempt int NOT NULL DEFAULT 0, visible_until float8, id text COLLATE "C" PRIMARY KEY, queue text NOT NULL, state text NOT NULL, worker_id text, started_at text, type text NOT NULL, args json NOT NULL, meta json NOT NULL, created_at text NOT NULL, enqueued_at text, doc jsonb NOT NULL DEFAULT '{}') WITH (fillfactor=80);
CREATE INDEX ON ${S}.b (queue, priority DESC, seq) WHERE state = 'available';
CREATE INDEX ON ${S}.b (visible_until) WHERE state = 'active';
CREATE TABLE ${S}.c (LIKE ${S}.b INCLUDING ALL);
CREATE TABLE ${S}.c_done (id text COLLATE "C" PRIMARY KEY, queue text NOT NULL, type text NOT NULL, attempt int NOT NULL, args json NOT NULL, meta json NOT NULL, created_at text NOT NULL, enqueued_at text, started_at text, completed_at text NOT NULL, finished_at float8 NOT NULL, worker_id text, doc jsonb NOT NULL);
CREATE TABLE ${S}.e_hot (priority int NOT NULL, seq bigint NOT NULL, attempt int NOT NULL DEFAULT 0, visible_until float8, finished_at float8, id text COLLATE "C" PRIMARY KEY, queue text NOT NULL, state text NOT NULL, worker_id text, started_at text, completed_at text) WITH (fillfactor=80);
CREATE INDEX ON ${S}.e_hot (queue, priority DESC, seq) WHERE state = 'available';
CREATE INDEX ON ${S}.e_hot (visible_until) WHERE state = 'active';
CREATE INDEX ON ${S}.e_hot (finished_at) WHERE state IN ('completed','cancelled','discarded');
CREATE TABLE ${S}.e_body (id text COLLATE "C" PRIMARY KEY, type text NOT NULL, args json NOT NULL, meta json NOT NULL, created_at text NOT NULL, enqueued_at text, doc jsonb NOT NULL DEFAULT '{}');
CREATE SEQUENCE ${S}.s;`);
const now = () => new Date().toISOString();
const rows = (q: string, from: number, n: number) =>
  JSON.stringify(
    Array.from({ length: n }, (_, k) => ({ id: `${q}-${String(from + k).padStart(8, '0')}-0190-7abc-8def-0123456789ab`, queue: q, args: `[${from + k}]` })),
  );
async function fill(table: 'b' | 'c' | 'e', q: string) {
  for (let i = 0; i < N; i += 1000) {
    const r = rows(q, i, 1000),
      t = now();
    if (table === 'e') {
      await c.query(
        `INSERT INTO ${S}.e_hot (priority, seq, id, queue, state) SELECT 0, nextval('${S}.s'), x.id, x.queue, 'available' FROM jsonb_to_recordset($1::jsonb) AS x(id text, queue text)`,
        [r],
      );
      await c.query(
        `INSERT INTO ${S}.e_body (id, type, args, meta, created_at, enqueued_at) SELECT x.id, 'bench.noop', x.args::json, '{}', $2, $2 FROM jsonb_to_recordset($1::jsonb) AS x(id text, queue text, args text)`,
        [r, t],
      );
    } else {
      await c.query(
        `INSERT INTO ${S}.${table} (priority, seq, id, queue, state, type, args, meta, created_at, enqueued_at) SELECT 0, nextval('${S}.s'), x.id, x.queue, 'available', 'bench.noop', x.args::json, '{}', $2, $2 FROM jsonb_to_recordset($1::jsonb) AS x(id text, queue text, args text)`,
        [r, t],
      );
    }
  }
  await c.query(`ANALYZE ${S}.${table === 'e' ? 'e_hot' : table}`);
}
const claimB = (
  t: string,
) => `WITH p AS (SELECT ctid FROM ${S}.${t} WHERE queue = $1 AND state = 'available' ORDER BY priority DESC, seq LIMIT $2 FOR UPDATE SKIP LOCKED)
  UPDATE ${S}.${t} j SET state = 'active', attempt = j.attempt + 1, worker_id = $3, visible_until = $4, started_at = $5 FROM p WHERE j.ctid = p.ctid AND j.state = 'available'
  RETURNING j.id, j.type, j.queue, j.args, j.meta, j.priority, j.attempt, j.created_at, j.enqueued_at, j.started_at, j.worker_id`;
const layouts: Record<string, { table: 'b' | 'c' | 'e'; claim: string; complete: string }> = {
  'delete on completion (graphile-like)': {
    table: 'b',
    claim: claimB('b'),
    complete: `DELETE FROM ${S}.b WHERE id = ANY($1) AND state = 'active' AND worker_id = $2`,
  },
  'delete + archive insert': {
    table: 'c',
    claim: claimB('c'),
    complete: `WITH d AS (DELETE FROM ${S}.c WHERE id = ANY($1) AND state = 'active' AND worker_id = $2 RETURNING *)
    INSERT INTO ${S}.c_done SELECT id, queue, type, attempt, args, meta, created_at, enqueued_at, started_at, $3, $4, worker_id, doc FROM d`,
  },
  'narrow hot row + body table': {
    table: 'e',
    claim: `WITH p AS (SELECT ctid FROM ${S}.e_hot WHERE queue = $1 AND state = 'available' ORDER BY priority DESC, seq LIMIT $2 FOR UPDATE SKIP LOCKED),
    u AS (UPDATE ${S}.e_hot j SET state = 'active', attempt = j.attempt + 1, worker_id = $3, visible_until = $4, started_at = $5 FROM p WHERE j.ctid = p.ctid AND j.state = 'available' RETURNING j.id, j.queue, j.priority, j.attempt, j.started_at, j.worker_id)
    SELECT u.*, b.type, b.args, b.meta, b.created_at, b.enqueued_at FROM u JOIN ${S}.e_body b ON b.id = u.id`,
    complete: `UPDATE ${S}.e_hot SET state = 'completed', completed_at = $3, finished_at = $4, visible_until = NULL, worker_id = NULL WHERE id = ANY($1) AND state = 'active' AND worker_id = $2`,
  },
};
for (let round = 0; round < 2; round++)
  for (const [name, l] of Object.entries(layouts)) {
    const q = `q${round}`;
    await fill(l.table, q);
    const a = await lsn(),
      t0 = cpu();
    let done = 0;
    for (;;) {
      const { rows: got } = await c.query(l.claim, [q, B, 'w1', Date.now() + 30000, now()]);
      if (got.length === 0) break;
      const ids = got.map((r: { id: string }) => r.id);
      const params = l.table === 'b' ? [ids, 'w1'] : [ids, 'w1', now(), Date.now()];
      const res = await c.query(l.complete, params);
      if (res.rowCount !== ids.length) throw new Error(`${name}: completed ${res.rowCount} of ${ids.length}`);
      done += ids.length;
    }
    const us = cpu() - t0,
      w = await wal(a, await lsn());
    // The first round warms caches and plans; the second is reported.
    if (round === 1) console.log(`${name}: ${done} jobs, backend ${(us / done).toFixed(1)} µs/job, WAL ${(w / done).toFixed(0)} B/job`);
  }
await c.query(`DROP SCHEMA ${S} CASCADE`);
await c.end();
