/** The shared suites on the Kafka driver over one store kind: a subject per case, on a namespace of its own. */
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract, runDriverContract, skipHistoryCases } from '@ojskit/contract';
import type { TestBroker } from './broker.js';
import { dispatchControl, HeldQueues } from './dispatch-control.js';
import { CONTRACT_SKIPS, DRIVER_SKIPS } from './skips.js';
import { disposeKafka, kafkaDriver, uniqueNamespace } from './stores.js';

/** A store kind: how to open one on a namespace, and how to remove the namespace afterwards. */
export interface StoreKind {
  /** `redis` or `postgres`, shown in the suite's name. */
  name: string;
  open(namespace: string): Promise<Driver>;
  drop?(namespace: string): Promise<void>;
  /** Why the history cases skip, as on the store's own adapter. */
  noHistory: string;
}

export function runKafkaDriverSuite(broker: TestBroker, store: StoreKind): void {
  runDriverContract({
    name: `kafka+${store.name}`,
    create: async () => {
      const ns = uniqueNamespace();
      const held = new HeldQueues(ns);
      const driver = await kafkaDriver(broker, await store.open(ns), ns, {}, held);
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
          await disposeKafka(driver);
          await store.drop?.(ns);
        },
      };
    },
    skip: DRIVER_SKIPS,
  });
}

export function runKafkaBackendSuite(broker: TestBroker, store: StoreKind): void {
  runBackendContract({
    name: `kafka+${store.name}`,
    create: async () => {
      const clock = new ManualClock();
      const ns = uniqueNamespace();
      const held = new HeldQueues(ns);
      const driver = await kafkaDriver(broker, await store.open(ns), ns, {}, held);
      const engine = new Engine({ driver, clock });
      return {
        api: engine,
        clock,
        driver,
        dispatchLog: dispatchControl(driver, held),
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          await engine.stop();
          await disposeKafka(driver);
          await store.drop?.(ns);
        },
      };
    },
    skip: { ...CONTRACT_SKIPS, ...skipHistoryCases(store.noHistory) },
    modelRuns: 100,
  });
}
