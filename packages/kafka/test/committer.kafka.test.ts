/**
 * The dispatcher's commits, sent behind the batch handler (`Committer`): a commit the group refuses is tried
 * again until the offset is committed, and the handler never waits for it.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumedBatch, KafkaConsumer } from '../src/index.js';
import { Committer } from '../src/driver/committer.js';
import { faultsAvailable, noFaultsReason, startBroker, uniqueTopic, type TestBroker } from './support/broker.js';
import { testClient } from './support/client.js';
import { eventually } from './support/collector.js';
import { waitUntil } from './support/faults.js';

describe.skipIf(!faultsAvailable)(`the dispatcher's committer${faultsAvailable ? '' : ` (${noFaultsReason})`}`, () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  async function committedOffset(groupId: string, topic: string): Promise<number> {
    const admin = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING, clientId: 'ojskit-committer-check' }).admin();
    await admin.connect();
    try {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return Number(offsets?.partitions.find((p) => p.partition === 0)?.offset ?? -1);
    } finally {
      await admin.disconnect();
    }
  }

  it('a refused commit is retried until the offset is committed; batches do not wait for it', { timeout: 60_000 }, async () => {
    const topic = uniqueTopic('committer');
    const groupId = uniqueTopic('g');
    await broker.topic(topic, 1, 1);
    const { client } = testClient(broker);
    const lines: string[] = [];
    // The committer asks for the consumer only when a batch made it commit, after `consume` resolved.
    const committer = new Committer(
      () => consumer,
      (line) => lines.push(line),
    );
    let handled = 0;
    const onBatch = async (batch: ConsumedBatch): Promise<void> => {
      handled += batch.records.length;
      committer.commit(batch, String(BigInt(batch.records[batch.records.length - 1]!.offset) + 1n));
    };
    const consumer: KafkaConsumer = await client.consume({ groupId, topics: [topic], onBatch, maxWaitMs: 50 });
    try {
      await consumer.joined();
      await broker.command('err OffsetCommit REBALANCE_IN_PROGRESS 2');
      const producer = await client.producer();
      await producer.produce([{ topic, records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] }]);
      await producer.close();
      await eventually('three records handled', () => handled === 3);
      await waitUntil('the offset after the third record committed', async () => (await committedOffset(groupId, topic)) === 3, 30_000, 250);
      expect(lines.some((l) => /offset commit failed, retrying/.test(l))).toBe(true);
      await committer.flush(5_000);
    } finally {
      committer.close();
      await consumer.close();
    }
  });
});
