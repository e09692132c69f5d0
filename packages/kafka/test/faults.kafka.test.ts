/**
 * Faults through the port, injected by the test broker: brokers down and up, produce and commit errors. Each
 * test also checks the quiet log said so in a few lines, without stack traces.
 */
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultsAvailable, noFaultsReason, startBroker, uniqueTopic, type TestBroker } from './support/broker.js';
import { testClient } from './support/client.js';
import { Collector, eventually } from './support/collector.js';

const noStackTraces = (log: string[]): void => {
  for (const line of log) expect(line).not.toMatch(/\n\s+at /);
};

describe.skipIf(!faultsAvailable)(`kafkajs port under injected faults (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  async function consumeAll(topic: string, count: number): Promise<string[]> {
    const { client } = testClient(broker);
    const got = new Collector();
    const consumer = await client.consume({ groupId: uniqueTopic('g'), topics: [topic], onBatch: got.onBatch, maxWaitMs: 200 });
    await got.waitFor(count);
    await consumer.close();
    return got.values();
  }

  it('a produce started while every broker is down waits, and completes once they are back', { timeout: 60_000 }, async () => {
    const topic = uniqueTopic('down');
    await broker.topic(topic, 4, 1);
    const { client, log } = testClient(broker);
    const producer = await client.producer();
    await producer.produce([{ topic, records: [{ key: 'k0', value: 'before' }] }]);

    await broker.command('down all');
    let settled = false;
    const during = producer.produce([{ topic, records: ['d0', 'd1', 'd2', 'd3'].map((v) => ({ key: v, value: v })) }]).finally(() => {
      settled = true;
    });
    await eventually('the producer to notice the brokers are down', () => log.some((l) => l.includes('unreachable')));
    expect(settled).toBe(false);
    await broker.command('up all');
    await during;
    await producer.produce([{ topic, records: [{ key: 'k9', value: 'after' }] }]);
    await producer.close();

    expect((await consumeAll(topic, 6)).sort()).toEqual(['after', 'before', 'd0', 'd1', 'd2', 'd3']);
    // One line per broker that went away, one when work resumed; retries print nothing.
    const unreachable = log.filter((l) => l.includes('unreachable'));
    expect(unreachable.length).toBeGreaterThan(0);
    expect(new Set(unreachable).size).toBe(unreachable.length);
    expect(unreachable.length).toBeLessThanOrEqual(broker.brokers.length);
    expect(log.some((l) => l.includes('working again'))).toBe(true);
    expect(log.length).toBeLessThan(20);
    noStackTraces(log);
  });

  it('a stream of produces survives one broker going down and up mid-run', { timeout: 60_000 }, async () => {
    const topic = uniqueTopic('midrun');
    await broker.topic(topic, 3, 1);
    await broker.command(`leader ${topic} 1 2`);
    const { client, log } = testClient(broker);
    const producer = await client.producer();
    const sent: string[] = [];
    let stop = false;
    const run = (async () => {
      for (let i = 0; !stop; i += 3) {
        const batch = [i, i + 1, i + 2].map((n) => `m${n}`);
        await producer.produce([{ topic, records: batch.map((v) => ({ key: v, value: v })) }]);
        sent.push(...batch);
      }
    })();
    try {
      await eventually('a first stretch of produces', () => sent.length >= 30);
      await broker.command('down 2');
      // A request in flight shows up as a closed connection, a new one as an unreachable broker.
      await eventually('the producer to notice broker 2 is gone', () => log.length > 0);
    } finally {
      await broker.command('up 2');
    }
    const atUp = sent.length;
    await eventually('produces after the broker came back', () => sent.length >= atUp + 30);
    stop = true;
    await run;
    await producer.close();
    // At least once: a request in flight when its connection dropped may have been written and then retried
    // (the test broker does not deduplicate a non-transactional idempotent producer; Kafka does).
    const got = await consumeAll(topic, sent.length);
    expect(new Set(got)).toEqual(new Set(sent));
    expect(log.some((l) => l.includes('working again'))).toBe(true);
    noStackTraces(log);
  });

  it('a consumer-group member outlives every broker going down and up', { timeout: 60_000 }, async () => {
    const topic = uniqueTopic('cdown');
    await broker.topic(topic, 2, 1);
    const { client, log } = testClient(broker);
    const producer = await client.producer();
    const got = new Collector();
    const consumer = await client.consume({
      groupId: uniqueTopic('g'),
      topics: [topic],
      onBatch: got.onBatch,
      maxWaitMs: 200,
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
    });
    try {
      await producer.produce([{ topic, records: [{ value: 'before' }] }]);
      await got.waitFor(1);
      await broker.command('down all');
      try {
        await eventually('the consumer to notice the brokers are down', () => log.some((l) => l.includes('unreachable')));
      } finally {
        await broker.command('up all');
      }
      await producer.produce([{ topic, records: [{ value: 'after' }] }]);
      await eventually('the record produced after up', () => got.values().includes('after'), 30_000);
      // Uncommitted records may come again after the member restarted; none may be missing.
      expect(new Set(got.values())).toEqual(new Set(['before', 'after']));
      noStackTraces(log);
    } finally {
      await consumer.close();
      await producer.close();
    }
  });

  it('a member whose join crashed with an error kafkajs does not restart from is restarted by the port, and consumes', { timeout: 60_000 }, async () => {
    const topic = uniqueTopic('crash');
    await broker.topic(topic, 2, 1);
    const { client, log } = testClient(broker);
    const producer = await client.producer();
    const got = new Collector();
    // Every FindCoordinator fails until cleared, so the join ends in KafkaJSGroupCoordinatorNotFound, which
    // kafkajs does not restart from: what a join meets while every broker refuses connections (broker down/up).
    await broker.command('err FindCoordinator NOT_COORDINATOR 100000');
    let consumer: Awaited<ReturnType<typeof client.consume>> | undefined;
    try {
      try {
        consumer = await client.consume({ groupId: uniqueTopic('g'), topics: [topic], onBatch: got.onBatch, maxWaitMs: 200 });
        await eventually('the member to crash', () => log.some((l) => l.includes('Crash: KafkaJSGroupCoordinatorNotFound')), 30_000);
      } finally {
        await broker.command('clear-err FindCoordinator');
      }
      await producer.produce([{ topic, records: [{ value: 'after' }] }]);
      await eventually('the record produced after the crash', () => got.values().includes('after'), 30_000);
      expect(log.some((l) => /consumer .+: restarting in \d+ ms after a crash kafkajs does not restart from/.test(l))).toBe(true);
      noStackTraces(log);
    } finally {
      await consumer?.close();
      await producer.close();
    }
  });

  it('a produce retries through NOT_LEADER_FOR_PARTITION errors and writes each record once', async () => {
    const topic = uniqueTopic('notleader');
    await broker.topic(topic, 2, 1);
    const { client, log } = testClient(broker);
    const producer = await client.producer();
    await broker.command('err Produce NOT_LEADER_FOR_PARTITION 3');
    await producer.produce([
      {
        topic,
        records: [
          { key: 'a', value: 'a' },
          { key: 'b', value: 'b' },
        ],
      },
    ]);
    await producer.close();

    expect((await consumeAll(topic, 2)).sort()).toEqual(['a', 'b']);
    // The errors really happened, and three of them made one line.
    expect(log.filter((l) => /not the leader/i.test(l) && l.includes('Producer'))).toHaveLength(1);
    noStackTraces(log);
  });

  it('a commit retries through coordinator errors; a commit during a rebalance rejects', async () => {
    const topic = uniqueTopic('commit');
    await broker.topic(topic, 1, 1);
    const { client } = testClient(broker);
    const producer = await client.producer();
    await producer.produce([{ topic, records: [{ value: 'x' }] }]);
    await producer.close();
    const got = new Collector();
    const consumer = await client.consume({ groupId: uniqueTopic('g'), topics: [topic], onBatch: got.onBatch, maxWaitMs: 200 });
    try {
      await got.waitFor(1);
      await broker.command('err OffsetCommit NOT_COORDINATOR 1');
      await broker.command('err OffsetCommit COORDINATOR_NOT_AVAILABLE 1');
      await consumer.commit(got.positions());
      await consumer.commit(got.positions());
      // Not retriable: the caller learns its records may be handed to another member.
      await broker.command('err OffsetCommit REBALANCE_IN_PROGRESS 1');
      await expect(consumer.commit(got.positions())).rejects.toThrow(/rebalanc/i);
    } finally {
      await consumer.close();
    }
  });

  it('the producer is idempotent: its records carry a producer id and consecutive sequence numbers', async () => {
    const topic = uniqueTopic('idem');
    await broker.topic(topic, 1, 1);
    const { client } = testClient(broker);
    const producer = await client.producer();
    await producer.produce([{ topic, records: [{ value: 'one' }, { value: 'two' }] }]);
    await producer.produce([{ topic, records: [{ value: 'three' }] }]);
    await producer.close();

    // The port hides record-batch headers, so read them with kafkajs itself.
    const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: uniqueTopic('g'), maxWaitTimeInMs: 200 });
    const batches: Array<{ producerId: string; firstSequence: number }> = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          const context = (message as KafkaMessage & { batchContext: { producerId: string; firstSequence: number } }).batchContext;
          if (!batches.some((b) => b.firstSequence === context.firstSequence)) batches.push(context);
        }
      },
    });
    await eventually('both record batches', () => batches.length === 2);
    await consumer.disconnect();

    expect(batches[0]!.producerId).not.toBe('-1');
    expect(batches[1]!.producerId).toBe(batches[0]!.producerId);
    expect(batches.map((b) => b.firstSequence)).toEqual([0, 2]);
  });
});
