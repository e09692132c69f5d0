/**
 * Throughput and latency through the Kafka client port (kafkajs) against the test broker, or KAFKA_BROKERS:
 * produce in batches and one by one, consume a backlog, and the produce → onBatch round trip on an idle topic.
 *
 *   pnpm --filter @ojskit/kafka bench:port       (BENCH_RECORDS=20000 BENCH_ROUND_TRIPS=1000 to change sizes)
 *
 * The test broker is librdkafka's mock cluster: in memory, in one process, no disk and no replication traffic.
 * Its figures describe the port and kafkajs on this machine more than what a Kafka cluster would do.
 */
import { performance } from 'node:perf_hooks';
import { createKafkajsClient, type ConsumedBatch, type KafkaClient } from '../src/index.js';
import { startBroker, uniqueTopic } from '../test/support/broker.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const ONE_BY_ONE = Math.min(RECORDS, Number(process.env.BENCH_ONE_BY_ONE ?? 2_000));
const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 1_000);
const PARTITIONS = 4;
/** The round trip's fetch wait: an idle fetch that misses a new record returns only after this long. */
const RT_MAX_WAIT_MS = Number(process.env.BENCH_MAX_WAIT_MS ?? 500);
const value = Buffer.alloc(100, 'x');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function latencyLine(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, max ${sorted[sorted.length - 1]!.toFixed(2)} ms`;
}

const rate = (count: number, ms: number): string => `${Math.round((count / ms) * 1000).toLocaleString('en-US')} records/s`;

async function produceBatches(client: KafkaClient, topic: string): Promise<void> {
  const producer = await client.producer();
  const started = performance.now();
  for (let i = 0; i < RECORDS; i += BATCH) {
    const records = Array.from({ length: Math.min(BATCH, RECORDS - i) }, (_, j) => ({ key: `job-${i + j}`, value }));
    await producer.produce([{ topic, records }]);
  }
  const ms = performance.now() - started;
  await producer.close();
  console.log(`produce, batches of ${BATCH}, one in flight: ${RECORDS} records in ${ms.toFixed(0)} ms = ${rate(RECORDS, ms)}`);
}

async function produceOneByOne(client: KafkaClient, topic: string): Promise<void> {
  const producer = await client.producer();
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < ONE_BY_ONE; i++) {
    const t = performance.now();
    await producer.produce([{ topic, records: [{ key: `one-${i}`, value }] }]);
    samples.push(performance.now() - t);
  }
  const ms = performance.now() - started;
  await producer.close();
  console.log(`produce, one record per call: ${ONE_BY_ONE} in ${ms.toFixed(0)} ms = ${rate(ONE_BY_ONE, ms)}; per call ${latencyLine(samples)}`);
}

async function consumeBacklog(client: KafkaClient, topic: string, expected: number): Promise<void> {
  let received = 0;
  let first = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const consumer = await client.consume({
    groupId: uniqueTopic('bench'),
    topics: [topic],
    maxWaitMs: 100,
    onBatch: async (batch: ConsumedBatch) => {
      if (received === 0) first = performance.now();
      received += batch.records.length;
      if (received >= expected) done();
    },
  });
  await all;
  const ms = performance.now() - first;
  await consumer.close();
  console.log(`consume a backlog (one member, ${PARTITIONS} partitions): ${expected} records in ${ms.toFixed(0)} ms after the first = ${rate(expected, ms)}`);
}

async function roundTrips(client: KafkaClient, topic: string): Promise<void> {
  const producer = await client.producer();
  const sentAt = new Map<string, number>();
  const samples: number[] = [];
  let arrived: (() => void) | null = null;
  const consumer = await client.consume({
    groupId: uniqueTopic('bench-rt'),
    topics: [topic],
    // The topic is fresh; from the beginning, so the first record cannot slip in before the position is set.
    fromBeginning: true,
    maxWaitMs: RT_MAX_WAIT_MS,
    onBatch: async (batch) => {
      const now = performance.now();
      for (const r of batch.records) {
        const t = r.key ? sentAt.get(r.key) : undefined;
        if (t !== undefined) samples.push(now - t);
      }
      arrived?.();
    },
  });
  await consumer.joined();
  // Warm-up: the first records pay for metadata and connection set-up.
  for (let i = 0; i < ROUND_TRIPS + 20; i++) {
    const key = `rt-${i}`;
    const wait = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`record ${key} not consumed within 10 s`)), 10_000);
      arrived = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    sentAt.set(key, performance.now());
    await producer.produce([{ topic, records: [{ key, value }] }]);
    await wait;
    if (i === 19) samples.length = 0;
  }
  await consumer.close();
  await producer.close();
  const slow = samples.filter((ms) => ms > RT_MAX_WAIT_MS / 2).length;
  console.log(
    `round trip produce → onBatch, idle topic, one at a time, fetch wait ${RT_MAX_WAIT_MS} ms: ${samples.length} samples, ${latencyLine(samples)}; ${slow} took over half the fetch wait`,
  );
}

const broker = await startBroker({ rebalanceDelayMs: 0 });
try {
  const client = createKafkajsClient({ brokers: broker.brokers, log: (line) => console.error(line) });
  const external = Boolean(process.env.KAFKA_BROKERS);
  console.log(
    `@ojskit/kafka port benchmark (kafkajs 2.2.4), ${external ? `broker ${process.env.KAFKA_BROKERS}` : 'test broker: librdkafka 2.15.1 mock cluster, 3 brokers in one process, in memory'}`,
  );
  console.log(`node ${process.version}; records of ${value.length} bytes; partitions ${PARTITIONS}`);
  const backlog = uniqueTopic('bench');
  const rt = uniqueTopic('bench-rt');
  await broker.topic(backlog, PARTITIONS, 1);
  await broker.topic(rt, 1, 1);
  await produceBatches(client, backlog);
  await produceOneByOne(client, backlog);
  await consumeBacklog(client, backlog, RECORDS + ONE_BY_ONE);
  await roundTrips(client, rt);
  if (!external) console.log('note: the mock is not a real broker (no disk, no replication, one process); these are port/kafkajs figures');
} finally {
  await broker.stop();
}
