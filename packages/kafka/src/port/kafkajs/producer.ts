/** The port's idempotent producer over kafkajs. */
import type { Kafka, Message, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import type { KafkaProducer, ProduceBatch, ProducedOffset, ProducerOptions } from '../types.js';
import type { QuietKafkaLog } from './quiet-log.js';

/** kafkajs's own advice for the idempotent producer: never give up on a retriable error. */
const UNLIMITED_RETRIES = Number.MAX_SAFE_INTEGER;

export class KafkajsProducer implements KafkaProducer {
  private constructor(
    private readonly producer: Producer,
    private readonly log: QuietKafkaLog,
  ) {}

  static async connect(kafka: Kafka, log: QuietKafkaLog, options: ProducerOptions = {}): Promise<KafkajsProducer> {
    const producer = kafka.producer({
      idempotent: true,
      // Idempotence in kafkajs requires one request in flight per broker connection.
      maxInFlightRequests: 1,
      // Naming the partitioner keeps kafkajs from warning that its default changed in 2.0.
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: UNLIMITED_RETRIES, maxRetryTime: options.maxRetryTimeMs ?? 2_000 },
    });
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    log.working();
    return new KafkajsProducer(producer, log);
  }

  async produce(batches: ProduceBatch[]): Promise<ProducedOffset[]> {
    const metadata = await this.producer.sendBatch({
      acks: -1,
      topicMessages: batches.map(({ topic, records }) => ({
        topic,
        messages: records.map((record): Message => ({
          key: record.key ?? null,
          value: record.value,
          ...(record.headers ? { headers: record.headers } : {}),
          ...(record.partition === undefined ? {} : { partition: record.partition }),
        })),
      })),
    });
    this.log.working();
    return metadata.map((m) => ({ topic: m.topicName, partition: m.partition, baseOffset: m.baseOffset ?? m.offset ?? '-1' }));
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }
}
