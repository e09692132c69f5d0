/** The shared backend contract suite against an engine on the Kafka driver with PostgreSQL as its store. */
import { afterAll, describe } from 'vitest';
import { Engine } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract, skipHistoryCases } from '@ojskit/contract';
import { kafkaAvailable, startBroker } from './support/broker.js';
import { CONTRACT_SKIPS } from './support/skips.js';
import { disposeKafka, kafkaDriver, postgresAvailable, postgresStore, dropSchema, uniqueNamespace } from './support/stores.js';

if (kafkaAvailable && postgresAvailable) {
  const broker = await startBroker({ rebalanceDelayMs: 100 });
  afterAll(() => broker.stop());
  runBackendContract({
    name: 'kafka+postgres',
    create: async () => {
      const clock = new ManualClock();
      const ns = uniqueNamespace();
      const driver = await kafkaDriver(broker, await postgresStore(ns), ns);
      const engine = new Engine({ driver, clock });
      return {
        api: engine,
        clock,
        driver,
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          await engine.stop();
          await disposeKafka(driver);
          await dropSchema(ns);
        },
      };
    },
    skip: {
      ...CONTRACT_SKIPS,
      ...skipHistoryCases('the PostgreSQL store does not record job history yet (capabilities.history is false), as on the PostgreSQL adapter'),
    },
    modelRuns: 100,
  });
} else {
  describe.skip('OJS backend contract: kafka+postgres (no test broker or no PostgreSQL; fails under CI=true)', () => {});
}
