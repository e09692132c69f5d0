/**
 * A worker process SIGKILLed mid-job: the jobs it held stay `active` until their reservation lapses, then the
 * engine's rescuer makes them retryable, the store's timer makes them available again, the relay and the
 * dispatcher deliver them again, and a live worker finishes them. After: every job completed, each run to the
 * end exactly once (the killed worker finished none), the dispatch group's lag 0.
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

/** The killed worker's reservation: how long its jobs stay `active` before the rescuer takes them back. */
const VISIBILITY_MS = 2_000;

describe.skipIf(!faultsAvailable)(`Kafka driver with a worker killed mid-job (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    it.skipIf(!available)(
      'the killed worker’s jobs are reclaimed after their reservation and finished elsewhere, each once',
      { timeout: 240_000 },
      async () => {
        const rig = await startRig({ kind, broker, driver: { claimWaitMs: 500 } });
        const child = ChildScript.run('worker-crash', {
          KIND: kind,
          NAMESPACE: rig.namespace,
          BROKERS: broker.brokers.join(','),
          VISIBILITY_MS: String(VISIBILITY_MS),
        });
        try {
          await child.waitFor('ready', 1, 180_000);
          const retry = { maxAttempts: 3, initialInterval: 100, jitter: false };
          const ids = await enqueueJobs(rig.client, 20, { retry });
          const started = await child.waitFor('started', 3);
          await child.kill();
          const killed = new Map(child.said('started').map(([id, attempt]) => [id!, Number(attempt)]));
          expect(started.length).toBeGreaterThanOrEqual(3);
          rig.startWorker({ concurrency: 10 });

          await waitAllTerminal(rig.store, ids);
          await waitForZeroLag(broker, rig.namespace);
          await expectAllCompletedOnce(rig.store, ids, rig.ledger, { exactlyOnce: true });
          // The killed worker's jobs finished in a later attempt than the one it died in.
          for (const [id, attempt] of killed) {
            expect(rig.ledger.entries.find((e) => e.id === id)?.attempt, `attempt that finished ${id}`).toBeGreaterThan(attempt);
          }
        } finally {
          await child.kill();
          await rig.dispose();
        }
      },
    );
  });
});
