/**
 * The Kafka client port: the few producer, consumer and admin operations the adapter needs, so the Kafka
 * client library behind them (kafkajs today) can be replaced without touching the driver.
 */

/** One record to produce. Values are opaque bytes to the port; the adapter decides the encoding. */
export interface ProduceRecord {
  /** Partitioning key: records with the same key land in the same partition, in order. */
  key?: string | null;
  value: Buffer | string;
  /** Header values are strings on the port: everything ojskit puts in a header is text. */
  headers?: Record<string, string>;
  /** An explicit partition overrides the key's partition. */
  partition?: number;
}

/** Records for one topic, produced together. */
export interface ProduceBatch {
  topic: string;
  records: ProduceRecord[];
}

/** Where a produced run of records landed: the first record's offset in its partition. */
export interface ProducedOffset {
  topic: string;
  partition: number;
  baseOffset: string;
}

/**
 * An idempotent producer whose `produce` resolves only once every record is acknowledged by all in-sync
 * replicas (acks=all). Retries of a produce never duplicate records in the log.
 */
export interface KafkaProducer {
  /**
   * Produces the batches; resolves with one offset per topic-partition written, rejects only on a
   * non-retriable error (a broker that is down is retried until it is back).
   */
  produce(batches: ProduceBatch[]): Promise<ProducedOffset[]>;
  close(): Promise<void>;
}

/** A record as delivered to a consumer. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  /** Kafka offsets are 64-bit: kept as decimal strings, as the protocol libraries do. */
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
  /** Producer or log-append time, milliseconds since the epoch. */
  timestamp: number;
}

/** Records fetched from one partition, in offset order. */
export interface ConsumedBatch {
  topic: string;
  partition: number;
  records: ConsumedRecord[];
  /** The partition's high watermark when fetched: `records` plus the lag behind it. */
  highWatermark: string;
  /**
   * True once the partition was revoked by a rebalance (or the consumer is stopping): the handler should
   * stop working on the batch; another member will receive the uncommitted records.
   */
  isStale(): boolean;
  /** Tells the group coordinator this member is alive during a long batch. */
  heartbeat(): Promise<void>;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A committed position: `offset` is the NEXT offset to read (last processed offset + 1), as in Kafka. */
export interface TopicPartitionOffset extends TopicPartition {
  offset: string;
}

/** A topic, or some of its partitions, to pause or resume. */
export interface PartitionSelection {
  topic: string;
  /** All of the topic's assigned partitions when omitted. */
  partitions?: number[];
}

export interface ConsumeOptions {
  groupId: string;
  topics: string[];
  /**
   * Called for each fetched batch, one partition at a time; the next batch of that partition waits for it.
   * Nothing is committed on the handler's behalf: call `commit` once the records' effects are durable.
   * A rejected promise makes the consumer fetch the batch again (after a restart of the fetch loop).
   */
  onBatch(batch: ConsumedBatch): Promise<void>;
  /** Where a group without a committed offset starts: the log's beginning (default) or its end. */
  fromBeginning?: boolean;
  /** How long the coordinator waits for a heartbeat before it moves this member's partitions (ms). */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Upper bound on records fetched per partition per request (bytes). */
  maxBytesPerPartition?: number;
  /**
   * Longest a fetch waits for new records on an idle log (ms, default 1000). New records end the wait at
   * once; this bounds idle requests and how long `close()` waits for the fetch in flight.
   */
  maxWaitMs?: number;
  /** Batches of different partitions handled at once (default 1). */
  partitionsConsumedConcurrently?: number;
}

/** A member of a consumer group, consuming its share of the topics' partitions. */
export interface KafkaConsumer {
  /** The partitions the group currently assigns to this member (empty before it has joined). */
  assignment(): TopicPartition[];
  /** Resolves once the member has joined the group with a non-empty assignment, or rejects after `timeoutMs`. */
  joined(timeoutMs?: number): Promise<TopicPartition[]>;
  /** Commits positions for the group; the group resumes from them after a restart or a rebalance. */
  commit(offsets: TopicPartitionOffset[]): Promise<void>;
  /** Stops fetching from the selection (already fetched batches still reach the handler). */
  pause(selection: PartitionSelection[]): void;
  resume(selection: PartitionSelection[]): void;
  /** Leaves the group and disconnects; uncommitted records go to the next member. */
  close(): Promise<void>;
}

export interface TopicSpec {
  topic: string;
  partitions: number;
  /** Defaults to the broker's default. */
  replicationFactor?: number;
}

/**
 * How `ensureTopics` got the topics: `created` through the admin API, `existing` when all were already
 * there, `auto-created` through the broker's topic auto-creation (partition count is then the broker's
 * default, not the spec's) for brokers without CreateTopics, such as the test broker.
 */
export type EnsureTopicsOutcome = 'created' | 'existing' | 'auto-created';

export interface KafkaAdmin {
  /** Makes sure the topics exist. */
  ensureTopics(topics: TopicSpec[]): Promise<EnsureTopicsOutcome>;
  /** The topic's partition count as the cluster reports it (throws when the topic does not exist). */
  partitionCount(topic: string): Promise<number>;
  close(): Promise<void>;
}

export interface ProducerOptions {
  /**
   * Longest wait between two retries of a failing produce (ms). The idempotent producer retries without a
   * count limit: a produce waits for a broker that is down instead of failing (kafkajs's advice for EoS).
   */
  maxRetryTimeMs?: number;
}

/** A connection to one Kafka cluster, making producers, consumers and admin handles. */
export interface KafkaClient {
  producer(options?: ProducerOptions): Promise<KafkaProducer>;
  consume(options: ConsumeOptions): Promise<KafkaConsumer>;
  admin(): Promise<KafkaAdmin>;
}
