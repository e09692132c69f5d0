/** The Kafka client port implemented over kafkajs 2.2.4 (pure JavaScript, no native build). */
import { Kafka } from 'kafkajs';
import type { ConsumeOptions, KafkaAdmin, KafkaClient, KafkaConsumer, KafkaProducer, ProducerOptions } from '../types.js';
import { KafkajsAdmin } from './admin.js';
import { KafkajsConsumer } from './consumer.js';
import { KafkajsProducer } from './producer.js';
import { QuietKafkaLog, type KafkaLogSink } from './quiet-log.js';

export interface KafkajsClientOptions {
  /** Bootstrap brokers, `host:port`. */
  brokers: string[];
  clientId?: string;
  /** A quiet log, or where its lines go (default: stderr). */
  log?: QuietKafkaLog | KafkaLogSink;
  /** How long to wait for a TCP connection to a broker (ms, default 3000). */
  connectionTimeoutMs?: number;
  /** How long to wait for a response to a request (ms, default 30000). */
  requestTimeoutMs?: number;
}

/**
 * A {@link KafkaClient} over kafkajs. Producers are idempotent with acks=all; consumers commit only when told.
 *
 * @example
 * const client = createKafkajsClient({ brokers: ['127.0.0.1:9092'] });
 * const producer = await client.producer();
 * await producer.produce([{ topic: 'ojs.default', records: [{ key: 'job-1', value: '{}' }] }]);
 * await producer.close();
 */
export function createKafkajsClient(options: KafkajsClientOptions): KafkaClient {
  const log = options.log instanceof QuietKafkaLog ? options.log : new QuietKafkaLog(options.log);
  const kafka = new Kafka({
    clientId: options.clientId ?? 'ojskit',
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    logLevel: log.kafkajsLevel,
    logCreator: log.logCreator,
  });
  return {
    producer: (producerOptions?: ProducerOptions): Promise<KafkaProducer> => KafkajsProducer.connect(kafka, log, producerOptions),
    consume: (consumeOptions: ConsumeOptions): Promise<KafkaConsumer> => KafkajsConsumer.start(kafka, log, consumeOptions),
    admin: (): Promise<KafkaAdmin> => KafkajsAdmin.connect(kafka),
  };
}
