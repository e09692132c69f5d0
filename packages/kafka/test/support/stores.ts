/**
 * Test support: the companion stores on the shared test services, each on a namespace of its own, and Kafka
 * drivers over them on the file's test broker. An unreachable store skips on a laptop and fails under CI=true.
 */
import { randomUUID } from 'node:crypto';
import type { Driver } from '@ojskit/core/driver';
import { createRedisDriver } from '@ojskit/redis';
import { createKafkaDriver, type KafkaDriver, type KafkaDriverOptions } from '../../src/index.js';
import type { TestBroker } from './broker.js';

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
  const ok = await probe(() => createRedisDriver(REDIS_URL, { prefix: uniqueNamespace(), checkMemoryPolicy: false, connection: { maxRetriesPerRequest: 0, retryStrategy: () => null } }));
  if (!ok && process.env.CI === 'true') throw new Error(`Redis is not reachable at ${REDIS_URL} (CI=true requires it)`);
  if (!ok) console.warn(`[@ojskit/kafka tests] Redis unreachable at ${REDIS_URL}: kafka+redis tests skipped`);
  return ok;
})();

/** Options the tests run the driver with: a short idle fetch and group session, so the test broker answers fast. */
export const TEST_DRIVER_OPTIONS: Partial<KafkaDriverOptions> = { sessionTimeoutMs: 6_000, maxWaitMs: 50, claimWaitMs: 5_000, sweepIntervalMs: 0, log: () => {} };

/** A Kafka driver on `store`, its dispatch topic created on the broker first, its dispatcher joined. */
export async function kafkaDriver(broker: TestBroker, store: Driver, namespace: string, options: Partial<KafkaDriverOptions> = {}): Promise<KafkaDriver> {
  // A peer on the same namespace finds the topic there already.
  await broker.topic(`${namespace}.dispatch`, 4).catch((e: unknown) => {
    if (!String(e).includes('TOPIC_ALREADY_EXISTS')) throw e;
  });
  const driver = await createKafkaDriver({ brokers: broker.brokers, store, prefix: namespace, ...TEST_DRIVER_OPTIONS, ...options });
  await driver.dispatcherJoined();
  return driver;
}

/** Removes what the driver stored and closes it. */
export async function disposeKafka(driver: KafkaDriver): Promise<void> {
  await driver.reset().catch(() => {});
  await driver.close();
}
