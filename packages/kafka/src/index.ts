/**
 * @ojskit/kafka: Kafka as the dispatch log of ojskit, with an ojskit driver (Redis or PostgreSQL) as the state
 * store. `createKafkaDriver` builds the driver; the Kafka client port it is built on is exported too.
 */
export * from './port/index.js';
export { createKafkaDriver, KafkaDriver, type KafkaDriverOptions } from './driver/kafka-driver.js';
export { createDriverFromUrl, parseKafkaUrl, type KafkaUrl } from './driver/from-url.js';
