/**
 * The events mirror on `<prefix>.events`, read back by a plain consumer: by default one record per queue of each
 * publish (key = the queue, value = the JSON array of its events); with `eventRecords: 'event'` one record per
 * event (key = the job). Either way every transition of a job is there once, in order.
 */
import { Engine, type OjsEvent } from '@ojskit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkajsClient, type KafkaDriverOptions } from '../src/index.js';
import { kafkaAvailable, startBroker, type TestBroker } from './support/broker.js';
import { Collector, eventually } from './support/collector.js';
import { disposeKafka, kafkaDriver, redisAvailable, redisStore, uniqueNamespace } from './support/stores.js';

const LIFECYCLE = ['job.enqueued', 'job.pending', 'job.started', 'job.completed'];

describe.skipIf(!kafkaAvailable || !redisAvailable)('the events topic', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  async function runJobs(options: Partial<KafkaDriverOptions>): Promise<{ ids: string[]; collector: Collector; events: () => OjsEvent[] }> {
    const namespace = uniqueNamespace();
    const driver = await kafkaDriver(broker, redisStore(namespace), namespace, options);
    const engine = new Engine({ driver });
    const collector = new Collector();
    const client = createKafkajsClient({ brokers: broker.brokers, log: () => {} });
    const consumer = await client.consume({ groupId: `${namespace}.readers`, topics: [`${namespace}.events`], onBatch: collector.onBatch, maxWaitMs: 50 });
    try {
      const { jobs } = await engine.enqueueBatch({ jobs: [0, 1, 2].map((i) => ({ type: 'ev.test', queue: 'ev', args: [i] })) });
      const ids = jobs.map((j) => j.id);
      expect(await driver.dispatched({ timeoutMs: 20_000 })).toBe(true);
      const { jobs: claimed } = await engine.fetch({ queues: ['ev'], count: 3, worker_id: 'w' });
      expect(claimed).toHaveLength(3);
      for (const id of ids) await engine.ack({ job_id: id, result: null });
      const events = (): OjsEvent[] =>
        collector.records.flatMap((r) => {
          const parsed = JSON.parse(r.value!.toString()) as OjsEvent | OjsEvent[];
          return Array.isArray(parsed) ? parsed : [parsed];
        });
      await eventually('every job completed on the events topic', () =>
        ids.every((id) => events().some((e) => e.subject === id && e.type === 'job.completed')),
      );
      return { ids, collector, events };
    } finally {
      await consumer.close();
      await engine.stop();
      await disposeKafka(driver);
    }
  }

  /** Each job's events, in the order of the topic (one partition holds all of a job's records). */
  function lifecycleOf(events: OjsEvent[], id: string): string[] {
    return events.filter((e) => e.subject === id).map((e) => e.type);
  }

  it('by default: one record per queue of a publish, key = the queue, value = its events in order', { timeout: 60_000 }, async () => {
    const { ids, collector, events } = await runJobs({});
    for (const r of collector.records) {
      expect(r.key).toBe('ev');
      const value = JSON.parse(r.value!.toString()) as OjsEvent[];
      expect(Array.isArray(value)).toBe(true);
      expect(r.headers['ojs-events']).toBe(String(value.length));
    }
    // The enqueue of three jobs was one publish: one record.
    expect(collector.records.length).toBeLessThan(events().length);
    for (const id of ids) expect(lifecycleOf(events(), id)).toEqual(LIFECYCLE);
  });

  it("eventRecords: 'event': one record per event, key = the job", { timeout: 60_000 }, async () => {
    const { ids, collector, events } = await runJobs({ eventRecords: 'event' });
    for (const r of collector.records) {
      const event = JSON.parse(r.value!.toString()) as OjsEvent;
      expect(r.key).toBe(event.subject);
      expect(r.headers['ojs-type']).toBe(event.type);
    }
    for (const id of ids) expect(lifecycleOf(events(), id)).toEqual(LIFECYCLE);
  });
});
