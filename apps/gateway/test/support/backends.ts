/**
 * The stores the gateway's HTTP suites run on: memory always, Redis (`REDIS_URL`) and PostgreSQL
 * (`DATABASE_URL`) when they answer. Each opened store is isolated (a fresh Redis key prefix, a Postgres
 * schema of its own) and deleted by the end of the test file, so several test runs can share the services.
 *
 * On a laptop without a service its suites are skipped with a warning; under `CI=true` an unreachable
 * service throws while the test file loads, so a skipped integration run can never pass for a green one
 * (the rule the redis and postgres packages' own tests follow).
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import type { ClientContractCase, DispatchLogControl } from '@ojskit/contract';
import type { Driver } from '@ojskit/core/driver';
import { MemoryDriver } from '@ojskit/memory';
import { SESSION_SETTINGS, migrate, PostgresDriver } from '@ojskit/postgres';
import { createRedisDriver } from '@ojskit/redis';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** An isolated store: a driver ready to take events, and how to delete what it holds. */
export interface OpenedStore {
  driver: Driver;
  /** How the contract settles and holds the store's dispatch log (a backend with `capabilities.dispatchLog`). */
  dispatchLog?: DispatchLogControl;
  /** Closes the driver; the store's data is deleted now or after the test file (call it while the driver is open). */
  dispose(): Promise<void>;
}

/** A store the suites run on. */
export interface TestBackend {
  /** The driver's `name`, as the manifest and health report it. */
  readonly name: 'memory' | 'redis' | 'postgres' | 'kafka+redis' | 'kafka+postgres';
  /** False when the service is unreachable here (never under `CI=true`: that throws instead). */
  readonly available: boolean;
  /** A fresh, empty, isolated store. */
  open(): Promise<OpenedStore>;
  /** A fresh isolated store as a `--backend` URL for gateway processes; deleted after the test file. */
  url(): string;
  /** Backend-contract cases this store does not run beyond the transport's own, each with its reason. */
  readonly contractSkips?: Record<string, string>;
  /** SDK client-contract cases this store does not run, each with its reason. */
  readonly clientContractSkips?: Partial<Record<ClientContractCase, string>>;
}

const unique = (): string => randomBytes(5).toString('hex');

/** The CI rule: unreachable is a skip on a laptop and an error under `CI=true`. */
function required(service: string, url: string, reachable: boolean): boolean {
  if (reachable) return true;
  if (process.env['CI'] === 'true') throw new Error(`${service} is not reachable at ${url} (CI=true requires it)`);
  console.warn(`[@ojskit/gateway tests] ${service} unreachable at ${url}: its suites are skipped`);
  return false;
}

/** Whether something at the URL's host and port answers a Redis PING (any reply: auth errors still mean "up"). */
function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const settle = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => settle(false));
    socket.once('error', () => settle(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', () => settle(true));
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const redisUp = required('Redis', REDIS_URL, await redisAnswers(REDIS_URL));
const postgresUp = required('PostgreSQL', DATABASE_URL, await postgresAnswers(DATABASE_URL));

/**
 * Redis stores of this test file share a prefix, `ojstest:gw:<file>:<store>`. A store's keys are deleted
 * with the file's, in one SCAN after the file: a SCAN walks the whole keyspace, which on a shared Redis
 * costs more than the test case that filled the store.
 */
const redisFilePrefix = `ojstest:gw:${unique()}`;
let redisUsed = false;
afterAll(async () => {
  if (!redisUsed) return;
  const sweeper = createRedisDriver(REDIS_URL, { prefix: redisFilePrefix, checkMemoryPolicy: false });
  await sweeper.reset();
  await sweeper.close();
});

function redisPrefix(): string {
  redisUsed = true;
  return `${redisFilePrefix}:${unique()}`;
}

/**
 * Postgres schemas of this test file, on one pool of its own. A disposed store's schema is emptied and reused
 * by the next one: migrating a fresh schema (DDL) costs more than the test cases that use it, and so does
 * connecting (a server process per connection), hence the shared pool. All are dropped after the file.
 */
const schemas = { free: [] as string[], all: [] as string[] };
let postgresPool: pg.Pool | undefined;

/** Commits need not wait for the WAL flush: test data need not survive a crash (as in the postgres package's tests). */
function sharedPool(): pg.Pool {
  postgresPool ??= new pg.Pool({ connectionString: DATABASE_URL, max: 6, options: `${SESSION_SETTINGS} -c synchronous_commit=off` });
  return postgresPool;
}

afterAll(async () => {
  if (schemas.all.length === 0) return;
  const pool = sharedPool();
  for (const schema of schemas.all.splice(0)) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

function postgresUrl(schema: string): string {
  const url = new URL(DATABASE_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** A schema no live store uses: a reused (empty, migrated) one, else a fresh name `migrate` will create. */
function takeSchema(): { schema: string; fresh: boolean } {
  const reused = schemas.free.pop();
  if (reused !== undefined) return { schema: reused, fresh: false };
  const schema = `ojs_gw_${unique()}`;
  schemas.all.push(schema);
  return { schema, fresh: true };
}

/**
 * Empties a schema for the next store: DELETE on every table the migrations made (read from the catalog, so a
 * new table is emptied too), one round trip. The driver's `reset()` TRUNCATEs, which on these few-row tables
 * cost about 290 ms a store on a loaded machine (new files for every table and partition) against the cases'
 * own 200 ms or so.
 */
async function emptySchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DO $$
    DECLARE t regclass;
    BEGIN
      FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = '${schema}' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'ojskit_migrations'
      LOOP EXECUTE format('DELETE FROM %s', t); END LOOP;
    END $$`);
}

/** Closing twice is harmless: an engine's `close()` may have closed the driver already. */
async function closeQuietly(driver: Driver): Promise<void> {
  await driver.close().catch(() => undefined);
}

export const MEMORY: TestBackend = {
  name: 'memory',
  available: true,
  open: async () => {
    const driver = new MemoryDriver();
    return { driver, dispose: () => closeQuietly(driver) };
  },
  url: () => 'memory',
};

export const REDIS: TestBackend = {
  name: 'redis',
  available: redisUp,
  open: async () => {
    const driver = createRedisDriver(REDIS_URL, { prefix: redisPrefix(), checkMemoryPolicy: false });
    // The engine hears its own events back through pub/sub: subscribed before the first publish.
    await driver.events.ready();
    return { driver, dispose: () => closeQuietly(driver) };
  },
  url: () => {
    const url = new URL(REDIS_URL);
    url.searchParams.set('prefix', redisPrefix());
    return url.toString();
  },
};

export const POSTGRES: TestBackend = {
  name: 'postgres',
  available: postgresUp,
  open: async () => {
    const { schema, fresh } = takeSchema();
    const pool = sharedPool();
    if (fresh) await migrate({ pool, schema });
    const driver = new PostgresDriver({ pool, schema });
    await driver.events?.listen();
    return {
      driver,
      dispose: async () => {
        await emptySchema(pool, schema);
        await closeQuietly(driver);
        schemas.free.push(schema);
      },
    };
  },
  // Never reused: gateway processes may outlive the test that started them.
  url: () => postgresUrl(takeSchema().schema),
};

/** Every store, memory first. */
export const BACKENDS: readonly TestBackend[] = [MEMORY, REDIS, POSTGRES];

/**
 * Declares `title` once per store (`title [redis]`, …); a store unreachable here is a skipped suite whose
 * title says so.
 */
export function describeEachBackend(title: string, body: (backend: TestBackend) => void, backends: readonly TestBackend[] = BACKENDS): void {
  for (const backend of backends) {
    if (backend.available) describe(`${title} [${backend.name}]`, () => body(backend));
    else describe.skip(`${title} [${backend.name}] (unreachable; fails under CI=true)`, () => undefined);
  }
}
