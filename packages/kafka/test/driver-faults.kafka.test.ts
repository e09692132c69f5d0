/**
 * The Kafka driver under faults the test broker injects, store = Redis: after each, every job is terminal,
 * none lost, none run twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Worker, inProcess } from '@ojskit/client';
import { faultsAvailable, noFaultsReason, startBroker, type TestBroker } from './support/broker.js';
import { disposeKafka, kafkaDriver, redisAvailable, redisStore, uniqueNamespace } from './support/stores.js';

const JOBS = 60;

describe.skipIf(!faultsAvailable || !redisAvailable)(
  `Kafka driver under broker faults, store = Redis (skipped when ${noFaultsReason}, or without Redis)`,
  () => {
    let broker: TestBroker;

    beforeAll(async () => {
      broker = await startBroker({ rebalanceDelayMs: 100 });
    });
    afterAll(async () => {
      await broker?.stop();
    });

    it('every broker down mid-run, then up: every job completes exactly once, the ones enqueued while it was down included', { timeout: 120_000 }, async () => {
      const ns = uniqueNamespace();
      const driver = await kafkaDriver(broker, redisStore(ns), ns, { claimWaitMs: 500 });
      const api = inProcess(driver);
      const client = new Client(api);
      const runs = new Map<string, number>();
      const worker = new Worker(api, { queues: ['work'], concurrency: 10 });
      worker.register('fault.job', async ({ job }) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        return null;
      });
      worker.start();
      try {
        const ids: string[] = [];
        for (let i = 0; i < JOBS / 2; i++) ids.push((await client.enqueue('fault.job', [i], { queue: 'work' })).id);
        await broker.command('down all');
        // The store takes enqueues while Kafka is away; their records wait in the relay.
        for (let i = JOBS / 2; i < JOBS; i++) ids.push((await withTimeout(client.enqueue('fault.job', [i], { queue: 'work' }), 5_000)).id);
        await new Promise((r) => setTimeout(r, 2_000));
        await broker.command('up all');
        const deadline = Date.now() + 90_000;
        for (;;) {
          const counts = await driver.jobCounts({ queue: 'work' });
          if (counts.completed === JOBS || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 250));
        }
        const counts = await driver.jobCounts({ queue: 'work' });
        expect(counts.completed).toBe(JOBS);
        expect(new Set(ids).size).toBe(JOBS);
        for (const id of ids) expect(runs.get(id), `runs of ${id}`).toBe(1);
      } finally {
        await worker.close();
        await disposeKafka(driver);
        await api.close().catch(() => {});
      }
    });
  },
);

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms))]);
}
