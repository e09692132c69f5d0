/** The port's admin-lite over kafkajs: topic creation, falling back to auto-creation where unsupported. */
import { Partitioners, type Admin, type Kafka } from 'kafkajs';
import type { EnsureTopicsOutcome, KafkaAdmin, TopicSpec } from '../types.js';

export class KafkajsAdmin implements KafkaAdmin {
  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
  ) {}

  static async connect(kafka: Kafka): Promise<KafkajsAdmin> {
    const admin = kafka.admin();
    await admin.connect();
    return new KafkajsAdmin(kafka, admin);
  }

  async ensureTopics(topics: TopicSpec[]): Promise<EnsureTopicsOutcome> {
    if (topics.length === 0) return 'existing';
    let created: boolean;
    try {
      created = await this.admin.createTopics({
        waitForLeaders: true,
        topics: topics.map((t) => ({
          topic: t.topic,
          numPartitions: t.partitions,
          ...(t.replicationFactor === undefined ? {} : { replicationFactor: t.replicationFactor }),
        })),
      });
    } catch (error) {
      if (!unsupported(error)) throw error;
      await this.autoCreate(topics.map((t) => t.topic));
      return 'auto-created';
    }
    return created ? 'created' : 'existing';
  }

  async partitionCount(topic: string): Promise<number> {
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
    const found = topics.find((t) => t.name === topic);
    if (!found) throw new Error(`topic ${topic} does not exist`);
    return found.partitions.length;
  }

  /**
   * The admin client never asks for auto-creation (kafkajs builds it with allowAutoTopicCreation false); a
   * producer's metadata request does. A batch without records sends that request and writes nothing.
   */
  private async autoCreate(names: string[]): Promise<void> {
    const producer = this.kafka.producer({ allowAutoTopicCreation: true, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      await producer.sendBatch({ acks: -1, topicMessages: names.map((topic) => ({ topic, messages: [] })) });
    } finally {
      await producer.disconnect();
    }
    for (const name of names) await this.waitForTopic(name);
  }

  /** Auto-created topics appear in metadata a moment after the request that created them. */
  private async waitForTopic(name: string, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await this.partitionCount(name)) > 0) return;
      } catch (error) {
        if (Date.now() > end) throw error;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    await this.admin.disconnect();
  }
}

/** The broker does not implement CreateTopics (the test broker) or rejects the version kafkajs speaks. */
function unsupported(error: unknown): boolean {
  const e = error as { type?: string; name?: string; message?: string };
  return e.name === 'KafkaJSServerDoesNotSupportApiKey' || e.name === 'KafkaJSNotImplemented' || e.type === 'UNSUPPORTED_VERSION';
}
