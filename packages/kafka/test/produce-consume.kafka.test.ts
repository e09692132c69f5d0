/** The port against a Kafka-protocol broker: produce with keys and headers, consume, topics via admin-lite. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaAvailable, startBroker, uniqueTopic, type TestBroker } from './support/broker.js';
import { testClient, type TestClient } from './support/client.js';
import { Collector } from './support/collector.js';

describe.skipIf(!kafkaAvailable)('kafkajs port: produce and consume', () => {
  let broker: TestBroker;
  let kafka: TestClient;

  beforeAll(async () => {
    broker = await startBroker();
    kafka = testClient(broker);
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it('delivers produced records with their keys, values and headers, in order per key', async () => {
    const topic = uniqueTopic('pc');
    await broker.topic(topic, 4);
    const producer = await kafka.client.producer();
    const keys = ['job-a', 'job-b', 'job-c'];
    const records = Array.from({ length: 30 }, (_, i) => ({
      key: keys[i % keys.length]!,
      value: `value-${i}`,
      headers: { 'ojs-type': 'email.send', 'ojs-seq': String(i) },
    }));
    const written = await producer.produce([
      { topic, records: records.slice(0, 10) },
      { topic, records: records.slice(10) },
    ]);
    expect(written.length).toBeGreaterThan(0);
    for (const w of written) expect(w.topic).toBe(topic);

    const got = new Collector();
    const consumer = await kafka.client.consume({ groupId: uniqueTopic('g'), topics: [topic], onBatch: got.onBatch });
    await got.waitFor(30);
    await consumer.close();
    await producer.close();

    expect(got.values().sort()).toEqual(records.map((r) => r.value).sort());
    for (const r of got.records) {
      const seq = Number(r.headers['ojs-seq']);
      expect(r.headers['ojs-type']).toBe('email.send');
      expect(r.value?.toString()).toBe(`value-${seq}`);
      expect(r.key).toBe(keys[seq % keys.length]);
    }
    // One key maps to one partition, and a partition keeps produce order.
    for (const key of keys) {
      const ofKey = got.records.filter((r) => r.key === key);
      expect(new Set(ofKey.map((r) => r.partition)).size).toBe(1);
      const seqs = ofKey.map((r) => Number(r.headers['ojs-seq']));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });

  it('writes to an explicit partition when a record names one', async () => {
    const topic = uniqueTopic('part');
    await broker.topic(topic, 4);
    const producer = await kafka.client.producer();
    const written = await producer.produce([{ topic, records: [{ value: 'to-3', partition: 3 }] }]);
    await producer.close();
    expect(written).toEqual([{ topic, partition: 3, baseOffset: '0' }]);
  });

  it('ensureTopics makes topics usable, by CreateTopics or by auto-creation where the broker lacks it', async () => {
    const admin = await kafka.client.admin();
    const topic = uniqueTopic('admin');
    const outcome = await admin.ensureTopics([{ topic, partitions: 2 }]);
    // The test broker has no CreateTopics: auto-creation gives its default count (4); a real broker gives 2.
    expect(outcome === 'created' ? 2 : 4).toBe(await admin.partitionCount(topic));
    expect(await admin.ensureTopics([{ topic, partitions: 2 }])).not.toBe('created');
    await expect(admin.partitionCount(uniqueTopic('absent'))).rejects.toThrow();
    await admin.close();
  });
});
