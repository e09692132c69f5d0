/** The shared backend contract suite against an engine on the Kafka driver with Redis as its store, on the file's test broker. */
import { afterAll, describe } from 'vitest';
import { kafkaAvailable, startBroker } from './support/broker.js';
import { redisAvailable, redisStore } from './support/stores.js';
import { runKafkaBackendSuite } from './support/suites.js';

if (kafkaAvailable && redisAvailable) {
  const broker = await startBroker({ rebalanceDelayMs: 100 });
  afterAll(() => broker.stop());
  runKafkaBackendSuite(broker, { name: 'redis', open: async (ns) => redisStore(ns) });
} else {
  describe.skip('OJS backend contract: kafka+redis (no test broker or no Redis; fails under CI=true)', () => {});
}
