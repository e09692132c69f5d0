/**
 * Test support: the companion stores on the shared test services, each on a namespace of its own, and Kafka
 * drivers over them on the file's test broker. An unreachable store skips on a laptop and fails under CI=true.
 */
import { randomUUID } from 'node:crypto';
import type { Driver } from '@ojskit/core/driver';
import { createRedisDriver } from '@ojskit/redis';
import { createPostgresDriver } from '@ojskit/postgres';
import pg from 'pg';
import { createKafkaDriver, createKafkajsClient, type KafkaDriver, type KafkaDriverOptions } from '../../src/index.js';
import type { TestBroker } from './broker.js';
import type { HeldQueues } from './dispatch-control.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A namespace no other test uses: a Redis key prefix and a topic prefix. */
export function uniqueNamespace(): string {
  return `ojstest.k${randomUUID().slice(0, 8)}`;
}

export function redisStore(namespace: string): Driver {
  return createRedisDriver(REDIS_URL, { prefix: namespace, checkMemoryPolicy: false, dispatchLog: true });
}

async function probe(store: () => Driver): Promise<boolean> {
  const s = store();
  try {
    await s.ping();
    return true;
  } catch {
    return false;
  } finally {
    await s.close().catch(() => {});
  }
}

/** True when Redis answers; under CI=true an unreachable Redis is an error, never a skip. */
export const redisAvailable: boolean = await (async () => {
  const ok = await probe(() =>
    createRedisDriver(REDIS_URL, { prefix: uniqueNamespace(), checkMemoryPolicy: false, connection: { maxRetriesPerRequest: 0, retryStrategy: () => null } }),
  );
  if (!ok && process.env.CI === 'true') throw new Error(`Redis is not reachable at ${REDIS_URL} (CI=true requires it)`);
  if (!ok) console.warn(`[@ojskit/kafka tests] Redis unreachable at ${REDIS_URL}: kafka+redis tests skipped`);
  return ok;
})();

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** True when PostgreSQL answers; under CI=true an unreachable database is an error, never a skip. */
export const postgresAvailable: boolean = await (async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL unreachable at ${DATABASE_URL} (CI=true requires it)`, { cause: error });
    console.warn(`[@ojskit/kafka tests] PostgreSQL unreachable at ${DATABASE_URL}: kafka+postgres tests skipped`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
})();

/** A PostgreSQL store on a fresh schema (the namespace, as a schema name), migrated for a dispatch log. */
export async function postgresStore(namespace: string, max = 4): Promise<Driver> {
  return createPostgresDriver(DATABASE_URL, { schema: schemaOf(namespace), dispatchLog: true, max });
}

export function schemaOf(namespace: string): string {
  return namespace.replace(/\./g, '_');
}

/** Drops the namespace's schema (after its drivers closed). */
export async function dropSchema(namespace: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schemaOf(namespace)}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Options the tests run the driver with: a short idle fetch and group session, so the test broker answers fast. */
export const TEST_DRIVER_OPTIONS: Partial<KafkaDriverOptions> = {
  sessionTimeoutMs: 6_000,
  maxWaitMs: 50,
  claimWaitMs: 5_000,
  sweepIntervalMs: 0,
  // OJSKIT_KAFKA_TEST_LOG=1 prints the driver's and the Kafka client's log lines (crashes, restarts, outages).
  log:
    process.env['OJSKIT_KAFKA_TEST_LOG'] === '1'
      ? (line) => process.stderr.write(`[ojskit kafka ${new Date().toISOString().slice(11, 23)}] ${line}\n`)
      : () => {},
};

/**
 * A Kafka driver on `store`, its dispatch topic created on the broker first, its dispatcher joined. With `held`,
 * its producer keeps back the dispatch records of the queues `held` holds (the suites' `DispatchLogControl`).
 */
export async function kafkaDriver(
  broker: TestBroker,
  store: Driver,
  namespace: string,
  options: Partial<KafkaDriverOptions> = {},
  held?: HeldQueues,
): Promise<KafkaDriver> {
  // A peer on the same namespace finds the topic there already.
  await broker.topic(`${namespace}.dispatch`, 4).catch((e: unknown) => {
    if (!String(e).includes('TOPIC_ALREADY_EXISTS')) throw e;
  });
  const client = held?.wrap(createKafkajsClient({ brokers: broker.brokers, log: () => {} }));
  const driver = await createKafkaDriver({
    ...(client ? { client } : { brokers: broker.brokers }),
    store,
    prefix: namespace,
    ...TEST_DRIVER_OPTIONS,
    ...options,
  });
  await driver.dispatcherJoined();
  return driver;
}

/** Removes what the driver stored and closes it. */
export async function disposeKafka(driver: KafkaDriver): Promise<void> {
  await driver.reset().catch(() => {});
  await driver.close();
}
