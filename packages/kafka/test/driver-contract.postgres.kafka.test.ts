/** The shared driver-level suite against the Kafka driver with PostgreSQL as its store, on the file's test broker. */
import { afterAll, describe } from 'vitest';
import { runDriverContract } from '@ojskit/contract';
import type { Driver } from '@ojskit/core/driver';
import { kafkaAvailable, startBroker } from './support/broker.js';
import { DRIVER_SKIPS } from './support/skips.js';
import { disposeKafka, kafkaDriver, postgresAvailable, postgresStore, dropSchema, uniqueNamespace } from './support/stores.js';

if (kafkaAvailable && postgresAvailable) {
  const broker = await startBroker({ rebalanceDelayMs: 100 });
  afterAll(() => broker.stop());
  runDriverContract({
    name: 'kafka+postgres',
    create: async () => {
      const ns = uniqueNamespace();
      const driver = await kafkaDriver(broker, await postgresStore(ns), ns);
      const peers: Driver[] = [];
      return {
        driver,
        // Peers share the store and the log but run no dispatcher: another group member would cost a rebalance
        // per case (the test broker completes one only after session timeout - 1 s).
        peer: async () => {
          const peer = await kafkaDriver(broker, await postgresStore(ns), ns, { dispatcher: false });
          peers.push(peer);
          return peer;
        },
        close: async () => {
          await Promise.all(peers.map((p) => p.close()));
          await disposeKafka(driver);
          await dropSchema(ns);
        },
      };
    },
    skip: DRIVER_SKIPS,
  });
} else {
  describe.skip('OJS driver contract: kafka+postgres (no test broker or no PostgreSQL; fails under CI=true)', () => {});
}
