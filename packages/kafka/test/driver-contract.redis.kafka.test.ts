/** The shared driver-level suite against the Kafka driver with Redis as its store, on the file's test broker. */
import { afterAll, describe } from 'vitest';
import { kafkaAvailable, startBroker } from './support/broker.js';
import { redisAvailable, redisStore } from './support/stores.js';
import { runKafkaDriverSuite } from './support/suites.js';

if (kafkaAvailable && redisAvailable) {
  const broker = await startBroker({ rebalanceDelayMs: 100 });
  afterAll(() => broker.stop());
  runKafkaDriverSuite(broker, { name: 'redis', open: async (ns) => redisStore(ns) });
} else {
  describe.skip('OJS driver contract: kafka+redis (no test broker or no Redis; fails under CI=true)', () => {});
}
