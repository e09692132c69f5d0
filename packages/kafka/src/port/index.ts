/** The Kafka client port: the producer, consumer and admin operations the adapter uses, and its kafkajs implementation. */
export type * from './types.js';
export { createKafkajsClient, type KafkajsClientOptions } from './kafkajs/client.js';
export { QuietKafkaLog, type KafkaLogLevel, type KafkaLogSink } from './kafkajs/quiet-log.js';
