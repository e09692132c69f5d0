/**
 * The Kafka backends of the gateway's HTTP suites: the Kafka driver (`kafka://…?store=redis://…` or
 * `store=postgres://…`) over a Redis or PostgreSQL store, on the kafka package's test broker, with the
 * dispatch-log control its own suites use (`settle`, `hold`, `release`). Everything Kafka-specific comes from
 * the kafka package's test support: the broker (one per test file, started on first use), the drivers, the
 * holds and the cases the driver does not run.
 *
 * Drivers are pooled per file and emptied between cases, as in the kafka package's suites: a fresh one per case
 * would pay a producer connection, a dispatch-group join and (PostgreSQL) a migration each time.
 */
import { afterAll } from 'vitest';
import type { Driver } from '@ojskit/core/driver';
import type { KafkaDriver } from '@ojskit/kafka';
import { kafkaAvailable, startBroker, type TestBroker } from '../../../../packages/kafka/test/support/broker.js';
import { dispatchControl, HeldQueues } from '../../../../packages/kafka/test/support/dispatch-control.js';
import { CONTRACT_SKIPS } from '../../../../packages/kafka/test/support/skips.js';
import {
  dropSchema,
  kafkaDriver,
  postgresAvailable,
  postgresStore,
  redisAvailable,
  redisStore,
  uniqueNamespace,
} from '../../../../packages/kafka/test/support/stores.js';
import type { TestBackend } from './backends.js';

let broker: Promise<TestBroker> | undefined;
afterAll(async () => {
  await (await broker)?.stop();
});

/** `driver` with a `close` that leaves it open: the engine of a case closes what it is given, the pool keeps it. */
function keptOpen(driver: KafkaDriver): Driver {
  return new Proxy(driver, { get: (target, key, receiver) => (key === 'close' ? () => Promise.resolve() : Reflect.get(target, key, receiver)) });
}

interface Pooled {
  ns: string;
  driver: KafkaDriver;
  held: HeldQueues;
}

function kafkaBackend(
  kind: 'redis' | 'postgres',
  available: boolean,
  open: (ns: string) => Promise<Driver>,
  drop?: (ns: string) => Promise<void>,
): TestBackend {
  const free: Pooled[] = [];
  const all: Pooled[] = [];
  afterAll(async () => {
    for (const p of all.splice(0)) {
      await p.driver.close();
      await drop?.(p.ns);
    }
  });
  const take = async (): Promise<Pooled> => {
    const reused = free.pop();
    if (reused) return reused;
    broker ??= startBroker({ rebalanceDelayMs: 100 });
    const ns = uniqueNamespace();
    const held = new HeldQueues(ns);
    const pooled = { ns, held, driver: await kafkaDriver(await broker, await open(ns), ns, {}, held) };
    all.push(pooled);
    return pooled;
  };
  return {
    name: `kafka+${kind}`,
    available: kafkaAvailable && available,
    open: async () => {
      const pooled = await take();
      return {
        driver: keptOpen(pooled.driver),
        dispatchLog: dispatchControl(pooled.driver, pooled.held),
        dispose: async () => {
          // Called after the case's engine stopped: the next case finds the namespace empty and nothing held.
          await pooled.driver.reset();
          pooled.held.clear();
          free.push(pooled);
        },
      };
    },
    url: () => {
      throw new Error(`the ${kind} Kafka backend is for in-process gateways here (its broker starts with the first store)`);
    },
    contractSkips: CONTRACT_SKIPS,
  };
}

/** The Kafka driver over a Redis store (`kafka://…?store=redis://…`). */
export const KAFKA_REDIS: TestBackend = kafkaBackend('redis', redisAvailable, async (ns) => redisStore(ns));

/** The Kafka driver over a PostgreSQL store (`kafka://…?store=postgres://…`). */
export const KAFKA_POSTGRES: TestBackend = kafkaBackend('postgres', postgresAvailable, (ns) => postgresStore(ns), dropSchema);
