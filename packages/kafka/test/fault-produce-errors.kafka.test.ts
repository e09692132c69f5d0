/**
 * The Kafka driver while the test broker fails produce requests (the relay's records and the events topic's):
 * retriable errors the port retries, errors on one partition, and dropped connections mid-produce. After each:
 * every job completed exactly once, the dispatch group's lag 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultsAvailable, noFaultsReason, startBroker, type TestBroker } from './support/broker.js';
import { waitAllTerminal, enqueueJobs, expectAllCompletedOnce, FAULT_QUEUE, FAULT_TYPE, startRig, waitForZeroLag, type StoreKind } from './support/faults.js';
import { postgresAvailable, redisAvailable } from './support/stores.js';

const stores: Array<{ kind: StoreKind; available: boolean }> = [
  { kind: 'redis', available: redisAvailable },
  { kind: 'postgres', available: postgresAvailable },
];

describe.skipIf(!faultsAvailable)(`Kafka driver under produce errors (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    it.skipIf(!available)(
      'failed produces are retried: every job reaches the log, runs once, and the group commits every record',
      { timeout: 180_000 },
      async () => {
        const rig = await startRig({ kind, broker, driver: { claimWaitMs: 500 } });
        try {
          rig.startWorker({ concurrency: 10 });
          const ids: string[] = [];
          // Retriable errors, cluster-wide: the port retries them inside one produce.
          await broker.command('err Produce NOT_LEADER_FOR_PARTITION 4');
          ids.push(...(await enqueueJobs(rig.client, 10)));
          // The connection dropped mid-produce: the request may or may not have been written (the test broker does
          // not deduplicate the retry, so a record may arrive twice; the dispatch guard makes that harmless).
          await broker.command('err Produce _TRANSPORT 2');
          ids.push(...(await enqueueJobs(rig.client, 10)));
          // Every partition's leader answers late and then with an error, while a batch is enqueued.
          for (const b of [1, 2, 3]) await broker.command(`broker-err ${b} Produce REQUEST_TIMED_OUT 1 200`);
          const batch = await rig.client.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ type: FAULT_TYPE, args: [i], options: { queue: FAULT_QUEUE } })));
          ids.push(...batch.map((j) => j.id));

          await waitAllTerminal(rig.store, ids);
          await waitForZeroLag(broker, rig.namespace);
          const { reruns } = await expectAllCompletedOnce(rig.store, ids, rig.ledger, { exactlyOnce: true });
          expect(reruns).toBe(0);
        } finally {
          await broker.command('clear-err Produce').catch(() => {});
          await rig.dispose();
        }
      },
    );
  });
});
