/**
 * The Kafka driver with every broker down mid-run and back, store = Redis and store = PostgreSQL: enqueues
 * keep working meanwhile (their records wait in the relay); after, every job completed exactly once, the ones
 * enqueued while Kafka was away included, and the dispatch group's lag 0.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { faultsAvailable, noFaultsReason, startBroker, type TestBroker } from './support/broker.js';
import { waitAllTerminal, enqueueJobs, expectAllCompletedOnce, sleep, startRig, waitForZeroLag, type StoreKind } from './support/faults.js';
import { postgresAvailable, redisAvailable } from './support/stores.js';

const JOBS = 60;

const stores: Array<{ kind: StoreKind; available: boolean }> = [
  { kind: 'redis', available: redisAvailable },
  { kind: 'postgres', available: postgresAvailable },
];

describe.skipIf(!faultsAvailable)(`Kafka driver under broker faults (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    it.skipIf(!available)(
      'every broker down mid-run, then up: every job completes exactly once, the ones enqueued while it was down included',
      { timeout: 240_000 },
      async () => {
        const rig = await startRig({ kind, broker, driver: { claimWaitMs: 500 } });
        try {
          rig.startWorker({ concurrency: 10 });
          const ids = await enqueueJobs(rig.client, JOBS / 2);
          await broker.command('down all');
          try {
            // The store takes enqueues while Kafka is away; their records wait in the relay. The bound tells a
            // hang (an enqueue waiting for Kafka) from a slow machine: 30 enqueues take well under a second idle.
            ids.push(...(await withTimeout(enqueueJobs(rig.client, JOBS / 2), 60_000)));
            await sleep(2_000);
          } finally {
            await broker.command('up all');
          }
          await waitAllTerminal(rig.store, ids);
          await waitForZeroLag(broker, rig.namespace);
          await expectAllCompletedOnce(rig.store, ids, rig.ledger, { exactlyOnce: true });
        } finally {
          await rig.dispose();
        }
      },
    );
  });
});

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms))]);
}
