/** Test access to the real PostgreSQL: one fresh schema per test, dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/migrate.js';
import { PostgresDriver, type PostgresDriverOptions } from '../../src/postgres-driver.js';

/** The database tests use (`DATABASE_URL`, default the local `test` database). */
export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether Postgres answers. Integration tests skip on a laptop without it, but in CI (`CI=true`) an
 * unreachable database is a failure, never a skip.
 */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env['CI'] === 'true') throw new Error(`PostgreSQL unreachable at ${DATABASE_URL} (CI=true: not skipping)`, { cause: error });
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Evaluated once per test file: `describe.runIf(HAVE_PG)`. */
export const HAVE_PG = await postgresAvailable();

/** A schema name no other test (or package) uses. */
export function uniqueSchema(prefix = 'ojs_t'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface TestDatabase {
  schema: string;
  pool: pg.Pool;
  driver: PostgresDriver;
  /** A second driver on the same schema with its own pool: another process, as far as Postgres can tell. */
  peer(options?: Partial<PostgresDriverOptions>): PostgresDriver;
  /** Closes every driver and pool, and drops the schema. */
  drop(): Promise<void>;
}

/** Migrates a fresh schema and returns a driver on it. */
export async function openTestDatabase(options: Partial<PostgresDriverOptions> & { max?: number } = {}): Promise<TestDatabase> {
  const schema = uniqueSchema();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: options.max ?? 4 });
  await migrate({ pool, schema, ...(options.finishedPartitions !== undefined ? { finishedPartitions: options.finishedPartitions } : {}) });
  const driver = new PostgresDriver({ pool, schema, ...options });
  await driver.events?.listen();
  const peers: PostgresDriver[] = [];
  const peerPools: pg.Pool[] = [];
  return {
    schema,
    pool,
    driver,
    peer(peerOptions = {}) {
      const peerPool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      peerPools.push(peerPool);
      const peer = new PostgresDriver({ pool: peerPool, schema, ...peerOptions });
      peers.push(peer);
      return peer;
    },
    async drop() {
      for (const peer of peers) await peer.close();
      await driver.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
      for (const p of peerPools) await p.end();
    },
  };
}
