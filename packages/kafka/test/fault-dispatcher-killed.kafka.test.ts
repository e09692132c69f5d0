/**
 * A dispatcher process SIGKILLed mid-batch: its store had recorded the batch's deliveries (`pending`), its
 * offset commit never happened. Another dispatcher takes the partitions once the group drops the dead member,
 * is handed the uncommitted records again, and its guarded writes skip the jobs already delivered. After: every
 * job completed exactly once, the dispatch group's lag 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultsAvailable, noFaultsReason, startBroker, type TestBroker } from './support/broker.js';
import { ChildScript } from './support/child.js';
import { waitAllTerminal, enqueueJobs, expectAllCompletedOnce, startRig, waitForZeroLag, type StoreKind } from './support/faults.js';
import { postgresAvailable, redisAvailable } from './support/stores.js';

const stores: Array<{ kind: StoreKind; available: boolean }> = [
  { kind: 'redis', available: redisAvailable },
  { kind: 'postgres', available: postgresAvailable },
];

describe.skipIf(!faultsAvailable)(`Kafka driver with a dispatcher killed mid-batch (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    it.skipIf(!available)('the records of the killed batch are delivered again, the guard skips them, every job runs once', { timeout: 240_000 }, async () => {
      // This process enqueues and works but does not dispatch until the child is dead.
      const rig = await startRig({ kind, broker, driver: { dispatcher: false, claimWaitMs: 0 } });
      const child = ChildScript.run('dispatcher-crash', { KIND: kind, NAMESPACE: rig.namespace, BROKERS: broker.brokers.join(',') });
      try {
        await child.waitFor('ready', 1, 180_000);
        const ids = await enqueueJobs(rig.client, 30);
        const wrote = await child.waitFor('wrote');
        await child.kill();
        // The killed batch's deliveries are in the store (no worker ran yet): those jobs are dispatched `pending`,
        // their records uncommitted.
        const delivered = await rig.store.jobGet(wrote[0]![0]!);
        expect(delivered?.x.dispatchedAt).toBeDefined();
        rig.startWorker({ concurrency: 10 });
        ids.push(...(await enqueueJobs(rig.client, 10)));

        await rig.driver.startDispatcher();
        await rig.driver.dispatcherJoined(60_000);
        await waitAllTerminal(rig.store, ids);
        await waitForZeroLag(broker, rig.namespace);
        await expectAllCompletedOnce(rig.store, ids, rig.ledger, { exactlyOnce: true });
      } finally {
        await child.kill();
        await rig.dispose();
      }
    });
  });
});
