/** The port's consumer-group member over kafkajs: batches per partition, manual commits, pause/resume. */
import type { Consumer, ConsumerRunConfig, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import type { ConsumeOptions, ConsumedRecord, KafkaConsumer, PartitionSelection, TopicPartition, TopicPartitionOffset } from '../types.js';
import type { QuietKafkaLog } from './quiet-log.js';

function headerText(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    // A header repeated under one name arrives as an array; the port keeps the last, as Kafka's Java client does.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = last.toString();
  }
  return out;
}

function record(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString() : null,
    value: message.value,
    headers: headerText(message.headers),
    timestamp: Number(message.timestamp),
  };
}

/**
 * kafkajs defaults to 5 s, and `close()` waits for the fetch in flight: 1 s keeps shutdown quick at the cost
 * of one idle fetch per second per broker. New records end a fetch at once whatever the value.
 */
const DEFAULT_MAX_WAIT_MS = 1_000;

/** First and longest wait before the port restarts a member kafkajs gave up on (ms); doubled per crash in a row. */
const FIRST_RESTART_MS = 300;
const MAX_RESTART_MS = 5_000;

export class KafkajsConsumer implements KafkaConsumer {
  private current: TopicPartition[] = [];
  private waiters: Array<() => void> = [];
  /** What `run` was called with; a restart calls it again (the subscription stays on the kafkajs consumer). */
  private runConfig: ConsumerRunConfig | null = null;
  private restartTimer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | null = null;
  private restartMs = FIRST_RESTART_MS;
  private closing = false;

  private constructor(
    private readonly consumer: Consumer,
    private readonly groupId: string,
    private readonly log: QuietKafkaLog,
  ) {
    // kafkajs uses the eager protocol: a rebalance revokes every partition before the next join assigns.
    consumer.on(consumer.events.REBALANCING, () => {
      this.current = [];
    });
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.restartMs = FIRST_RESTART_MS;
      this.current = Object.entries(event.payload.memberAssignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition })));
      if (this.current.length > 0) for (const wake of this.waiters.splice(0)) wake();
    });
    consumer.on(consumer.events.STOP, () => {
      this.current = [];
    });
    // kafkajs restarts a crashed member only when the crash's root cause is retriable. Others leave it stopped
    // for good while the process runs on: with every broker refusing connections, finding the group coordinator
    // ends in KafkaJSGroupCoordinatorNotFound (non-retriable), and a handler's TypeError is non-retriable too.
    // A stopped dispatcher consumes nothing again, so the port restarts the member itself, with a backoff.
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart) this.scheduleRestart(event.payload.error);
    });
  }

  private scheduleRestart(error: Error): void {
    if (this.closing || this.runConfig === null || this.restartTimer !== undefined) return;
    const delay = this.restartMs;
    this.restartMs = Math.min(delay * 2, MAX_RESTART_MS);
    this.log.note(`consumer ${this.groupId}: restarting in ${delay} ms after a crash kafkajs does not restart from (${error.name}: ${error.message})`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closing || this.runConfig === null) return;
      // kafkajs disconnected the member before reporting the crash; `run` connects and joins again, and a
      // failure there is reported as another crash (handled here again), not as a rejection.
      this.restarting = this.consumer
        .run(this.runConfig)
        .catch((e: unknown) => this.scheduleRestart(e instanceof Error ? e : new Error(String(e))))
        .finally(() => {
          this.restarting = null;
        });
    }, delay);
  }

  static async start(kafka: Kafka, log: QuietKafkaLog, options: ConsumeOptions): Promise<KafkajsConsumer> {
    const consumer = kafka.consumer({
      groupId: options.groupId,
      ...(options.sessionTimeoutMs === undefined ? {} : { sessionTimeout: options.sessionTimeoutMs }),
      ...(options.heartbeatIntervalMs === undefined ? {} : { heartbeatInterval: options.heartbeatIntervalMs }),
      ...(options.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: options.maxBytesPerPartition }),
      maxWaitTimeInMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    });
    const port = new KafkajsConsumer(consumer, options.groupId, log);
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning ?? true });
      port.runConfig = {
        // Commits are the caller's: only it knows when a record's effects are durable.
        autoCommit: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
          const { topic, partition } = batch;
          await options.onBatch({
            topic,
            partition,
            highWatermark: batch.highWatermark,
            records: batch.messages.map((message) => record(topic, partition, message)),
            isStale: () => isStale() || !isRunning(),
            heartbeat,
          });
          log.working();
        },
      };
      await consumer.run(port.runConfig);
    } catch (error) {
      // A member that failed to start must not stay connected (or half-joined) behind the caller's back.
      port.closing = true;
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return port;
  }

  assignment(): TopicPartition[] {
    return [...this.current];
  }

  joined(timeoutMs = 30_000): Promise<TopicPartition[]> {
    if (this.current.length > 0) return Promise.resolve(this.assignment());
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(this.assignment());
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(new Error(`consumer did not join its group with an assignment within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }

  async commit(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    await this.consumer.commitOffsets(offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })));
  }

  pause(selection: PartitionSelection[]): void {
    this.consumer.pause(selection);
  }

  resume(selection: PartitionSelection[]): void {
    this.consumer.resume(selection);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.restarting;
    await this.consumer.disconnect();
    this.current = [];
  }
}
