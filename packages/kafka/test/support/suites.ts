/**
 * The shared suites on the Kafka driver over one store kind. Each case gets a driver on a namespace no other
 * live case uses; drivers are pooled per file and emptied (`reset`) between cases, so a case does not pay for
 * connecting a producer, joining the dispatch group and opening (or migrating) a store.
 */
import { afterAll } from 'vitest';
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract, runDriverContract } from '@ojskit/contract';
import type { KafkaDriver } from '../../src/index.js';
import type { TestBroker } from './broker.js';
import { dispatchControl, HeldQueues } from './dispatch-control.js';
import { CONTRACT_SKIPS, DRIVER_SKIPS } from './skips.js';
import { kafkaDriver, uniqueNamespace } from './stores.js';

/** A store kind: how to open one on a namespace, and how to remove the namespace afterwards. */
export interface StoreKind {
  /** `redis` or `postgres`, shown in the suite's name. */
  name: string;
  open(namespace: string): Promise<Driver>;
  drop?(namespace: string): Promise<void>;
}

/** A pooled driver: its namespace and the holds of its queues. */
interface Pooled {
  ns: string;
  driver: KafkaDriver;
  held: HeldQueues;
}

/**
 * Drivers of one file, reused across cases. Cases of a file run one after another, but one case may hold
 * several subjects at once (the model property runs four streams, each with its own clock): those get drivers
 * of their own. Closed after the file.
 */
function driverPool(broker: TestBroker, store: StoreKind): { take(): Promise<Pooled>; give(p: Pooled): Promise<void> } {
  const free: Pooled[] = [];
  const all: Pooled[] = [];
  afterAll(async () => {
    for (const p of all) {
      await p.driver.close();
      await store.drop?.(p.ns);
    }
  });
  return {
    take: async () => {
      const reused = free.pop();
      if (reused) return reused;
      const ns = uniqueNamespace();
      const held = new HeldQueues(ns);
      const pooled = { ns, held, driver: await kafkaDriver(broker, await store.open(ns), ns, {}, held) };
      all.push(pooled);
      return pooled;
    },
    give: async (p) => {
      // What a case left in the store (and in the log, whose records of removed jobs the guards skip) is gone
      // before the next case sees the namespace.
      await p.driver.reset();
      p.held.clear();
      free.push(p);
    },
  };
}

/** `driver` with a `close` that leaves it open: what an engine over a pooled driver is given. */
function keptOpen(driver: KafkaDriver): Driver {
  return new Proxy(driver, { get: (target, key, receiver) => (key === 'close' ? () => Promise.resolve() : Reflect.get(target, key, receiver)) });
}

export function runKafkaDriverSuite(broker: TestBroker, store: StoreKind): void {
  const pool = driverPool(broker, store);
  runDriverContract({
    name: `kafka+${store.name}`,
    create: async () => {
      const pooled = await pool.take();
      const { ns, held, driver } = pooled;
      const peers: Driver[] = [];
      return {
        driver,
        dispatchLog: dispatchControl(driver, held),
        // Peers share the store and the log but run no dispatcher: another group member would cost a rebalance
        // per case (the test broker completes one only after session timeout - 1 s).
        peer: async () => {
          const peer = await kafkaDriver(broker, await store.open(ns), ns, { dispatcher: false }, held);
          peers.push(peer);
          return peer;
        },
        close: async () => {
          await Promise.all(peers.map((p) => p.close()));
          await pool.give(pooled);
        },
      };
    },
    skip: DRIVER_SKIPS,
  });
}

export function runKafkaBackendSuite(broker: TestBroker, store: StoreKind): void {
  const pool = driverPool(broker, store);
  runBackendContract({
    name: `kafka+${store.name}`,
    create: async () => {
      const clock = new ManualClock();
      const pooled = await pool.take();
      const { held, driver } = pooled;
      const engine = new Engine({ driver: keptOpen(driver), clock });
      return {
        api: engine,
        clock,
        driver,
        dispatchLog: dispatchControl(driver, held),
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          // Ends the engine's services and its subscription to the store's events; the pooled driver stays open.
          await engine.close();
          await pool.give(pooled);
        },
      };
    },
    skip: CONTRACT_SKIPS,
    // Every step is an engine call over a store and, for a settle, the log: 100 sequences passed the 600 s case
    // limit on a loaded two-core machine (load 30).
    modelRuns: 25,
  });
}
