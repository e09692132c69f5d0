/**
 * The day partitions of `jobs_done` (finished jobs that are not dead-lettered, see migrations/0002): created
 * ahead of the finish times to come, dropped whole once wholly past the retention. Run by the pruner (under
 * its lease) through `jobPrune`, and by `migrate()` for a fresh schema.
 */
import type { Pool } from 'pg';
import { toOjsError } from './pg-errors.js';
import type { Queryable } from './statements.js';
import { atomically } from './transactions.js';

/** One day, the default width of a partition. */
export const DAY_MS = 86_400_000;

export interface PartitionPlan {
  /** Width of a partition (ms of finish time). Default one day. */
  widthMs: number;
  /** How many partitions after the current one exist at any time. Default 2. */
  ahead: number;
}

export const DEFAULT_PARTITIONS: PartitionPlan = { widthMs: DAY_MS, ahead: 2 };

/** How long DDL on the finished table may wait for its locks before it is left to the next run. */
const DDL_LOCK_TIMEOUT = '2s';

/**
 * `jobs_done_<yyyymmddhhmm of its start, UTC>`, with seconds and milliseconds (`…ssSSS`) when the start is not on
 * a minute: partitions narrower than a minute (a short retention) would otherwise share a name.
 */
export function partitionName(startMs: number): string {
  return `jobs_done_${new Date(startMs)
    .toISOString()
    .slice(0, startMs % 60_000 === 0 ? 16 : 23)
    .replace(/[-:T.]/g, '')}`;
}

/** The partitions of `jobs_done` with their bounds (the default partition has none). */
export async function listPartitions(on: Queryable, schema: string): Promise<Array<{ name: string; from: number; to: number }>> {
  const { rows } = await on.query<{ name: string; bound: string }>({
    text: `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = $1::regclass`,
    values: [`"${schema}".jobs_done`],
  });
  const partitions: Array<{ name: string; from: number; to: number }> = [];
  for (const row of rows) {
    const m = /FROM \('?([-\d.e+]+)'?\) TO \('?([-\d.e+]+)'?\)/.exec(row.bound);
    if (m) partitions.push({ name: row.name, from: Number(m[1]), to: Number(m[2]) });
  }
  return partitions;
}

/**
 * Creates the partition holding `now` and `plan.ahead` after it, where missing. Rows of the default partition
 * that fall in a new partition's range move into it in the same transaction (an ATTACH would otherwise fail).
 */
export async function ensurePartitions(pool: Pool, schema: string, now: number, plan: PartitionPlan = DEFAULT_PARTITIONS): Promise<string[]> {
  const existing = await listPartitions(pool, schema);
  const created: string[] = [];
  const first = Math.floor(now / plan.widthMs) * plan.widthMs;
  for (let k = 0; k <= plan.ahead; k++) {
    const from = first + k * plan.widthMs;
    const to = from + plan.widthMs;
    if (existing.some((p) => p.from < to && p.to > from)) continue;
    const name = partitionName(from);
    const made = await atomically(pool, undefined, async (on) => {
      const q = (text: string, values: unknown[] = []) => on.query({ text, values });
      await q(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT}'`);
      // Two pruners (or a pruner and a migration) never build the same partition.
      await q('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`ojskit:partitions:${schema}`]);
      if ((await listPartitions(on, schema)).some((p) => p.from < to && p.to > from)) return false;
      const s = `"${schema}"`;
      await q(`CREATE TABLE ${s}.${name} (LIKE ${s}.jobs_done INCLUDING DEFAULTS INCLUDING CONSTRAINTS) WITH (fillfactor = 100)`);
      await q(`INSERT INTO ${s}.${name} SELECT * FROM ${s}.jobs_done_default WHERE x_finished_at >= $1::float8 AND x_finished_at < $2::float8`, [from, to]);
      await q(`DELETE FROM ${s}.jobs_done_default WHERE x_finished_at >= $1::float8 AND x_finished_at < $2::float8`, [from, to]);
      await q(`ALTER TABLE ${s}.jobs_done ATTACH PARTITION ${s}.${name} FOR VALUES FROM (${from}) TO (${to})`);
      return true;
    }).catch((error: unknown) => {
      if (isLockTimeout(error)) return false; // busy: the next run creates it (the default partition holds its rows meanwhile)
      throw toOjsError(error, 'ensurePartitions');
    });
    if (made) created.push(name);
  }
  return created;
}

/** Drops the partitions whose every finish time is before `before`; returns how many jobs they held. */
export async function dropPartitionsBefore(pool: Pool, schema: string, before: number): Promise<number> {
  let dropped = 0;
  for (const partition of await listPartitions(pool, schema)) {
    if (partition.to > before) continue;
    dropped += await atomically(pool, undefined, async (on) => {
      await on.query({ text: `SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT}'` });
      const { rows } = await on.query<{ n: number }>({ text: `SELECT count(*)::int AS n FROM "${schema}".${partition.name}` });
      await on.query({ text: `DROP TABLE "${schema}".${partition.name}` });
      return rows[0]?.n ?? 0;
    }).catch((error: unknown) => {
      if (isLockTimeout(error)) return 0; // busy: dropped at the next run
      throw toOjsError(error, 'dropPartitionsBefore');
    });
  }
  return dropped;
}

function isLockTimeout(error: unknown): boolean {
  const cause = error as { cause?: { code?: string }; code?: string } | null;
  return cause?.code === '55P03' || cause?.cause?.code === '55P03';
}
