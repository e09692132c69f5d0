/** Applies the package's migrations to a schema: idempotent, serialised by an advisory lock. */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { lifecycleMigration, versionedMigrations } from './sql-files.js';
import { assertSchemaName, renderSql, templateValues } from './sql-template.js';
import { DEFAULT_PARTITIONS, ensurePartitions, type PartitionPlan } from './finished-partitions.js';

/** The schema used when none is given. */
export const DEFAULT_SCHEMA = 'ojskit';

/** Version recorded for the repeatable lifecycle migration. */
const LIFECYCLE_VERSION = 'lifecycle';

export interface MigrateOptions {
  pool: Pool;
  /** Schema holding the ojskit tables (created when missing). Default `ojskit`. */
  schema?: string;
  /**
   * The partitions of finished jobs a new schema starts with: give the driver's `finishedPartitions` here too.
   * A schema made with day partitions keeps filling them until they are past; a narrower width (a retention
   * of seconds or minutes) takes effect from then on.
   */
  finishedPartitions?: Partial<PartitionPlan>;
  /**
   * The schema is a dispatch log's store (`@ojskit/kafka`): its transition trigger admits core's dispatch-log
   * rows too. A schema belongs to one kind of driver: migrating it the other way re-installs the trigger.
   */
  dispatchLog?: boolean;
}

export interface MigrateResult {
  schema: string;
  /** Versioned migrations applied by this call (empty when the schema was up to date). */
  applied: string[];
  /** True when the lifecycle CHECK/trigger was (re)installed because core's table changed. */
  lifecycleUpdated: boolean;
}

/**
 * Brings `schema` up to date. Safe to run from many processes at once: the first takes an advisory lock
 * and migrates, the others wait for it and then find nothing to do. Each migration runs in its own
 * transaction together with its bookkeeping row.
 * @example await migrate({ pool, schema: 'ojskit' });
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const schema = assertSchemaName(options.schema ?? DEFAULT_SCHEMA);
  const values = templateValues(schema, { dispatchLog: options.dispatchLog === true });
  const q = values.schema!;
  const client = await options.pool.connect();
  let newlyMigrated = false;
  const lockKey = `ojskit:migrate:${schema}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${q}.ojskit_migrations (
           version text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = await client.query<{ version: string; checksum: string }>(`SELECT version, checksum FROM ${q}.ojskit_migrations`);
      const applied = new Map(done.rows.map((r) => [r.version, r.checksum]));

      const newlyApplied: string[] = [];
      for (const migration of versionedMigrations()) {
        if (applied.has(migration.version)) continue;
        const text = renderSql(migration.text, values);
        await inTransaction(client, async () => {
          await client.query(text);
          await client.query(`INSERT INTO ${q}.ojskit_migrations (version, checksum) VALUES ($1, $2)`, [migration.version, checksum(text)]);
        });
        newlyApplied.push(migration.version);
      }

      const lifecycle = renderSql(lifecycleMigration(), values);
      const sum = checksum(lifecycle);
      const lifecycleUpdated = applied.get(LIFECYCLE_VERSION) !== sum;
      if (lifecycleUpdated) {
        await inTransaction(client, async () => {
          await client.query(lifecycle);
          await client.query(
            `INSERT INTO ${q}.ojskit_migrations (version, checksum) VALUES ($1, $2)
             ON CONFLICT (version) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
            [LIFECYCLE_VERSION, sum],
          );
        });
      }
      // A claim planned without statistics picks poor plans; a fresh schema gets them now.
      if (newlyApplied.length > 0) await client.query(`ANALYZE ${q}.jobs`);
      newlyMigrated = newlyApplied.length > 0;
      return { schema, applied: newlyApplied, lifecycleUpdated };
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]);
    }
  } finally {
    client.release();
    // Today's partition of finished jobs and the next ones (the pruner keeps creating them ahead).
    if (newlyMigrated) await ensurePartitions(options.pool, schema, Date.now(), { ...DEFAULT_PARTITIONS, ...options.finishedPartitions });
  }
}

async function inTransaction(client: PoolClient, body: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await body();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
