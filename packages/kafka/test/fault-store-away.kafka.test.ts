/**
 * The Kafka driver while its store is unreachable for a few seconds mid-run: Redis = a private redis-server the
 * test stops (SHUTDOWN SAVE) and starts again; PostgreSQL = a TCP proxy in front of the shared server that the
 * test cuts (every connection dropped, new ones refused) and restores. Meanwhile the dispatcher cannot record
 * deliveries (its batches fail and are fetched again), workers cannot fetch or ACK. After: every job completed,
 * no attempt run twice, the dispatch group's lag 0. A finished run whose ACK was lost to the outage runs again
 * in a later attempt (at-least-once), which the checks allow and the test reports.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { faultsAvailable, noFaultsReason, startBroker, type TestBroker } from './support/broker.js';
import { waitAllTerminal, enqueueJobs, expectAllCompletedOnce, sleep, startRig, waitForZeroLag, waitUntil, type StoreKind } from './support/faults.js';
import { PrivateRedis, TcpProxy } from './support/outage.js';
import { DATABASE_URL, postgresAvailable, redisAvailable } from './support/stores.js';

/** How the test takes the store away and brings it back. */
interface Outage {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

async function redisOutage(): Promise<Outage> {
  const redis = await PrivateRedis.start();
  return { url: redis.url, down: () => redis.down(), up: () => redis.up(), close: () => redis.stop() };
}

async function postgresOutage(): Promise<Outage> {
  const target = new URL(DATABASE_URL);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const url = new URL(DATABASE_URL);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { url: url.toString(), down: () => proxy.cut(), up: () => proxy.restore(), close: () => proxy.stop() };
}

const stores: Array<{ kind: StoreKind; available: boolean; outage: () => Promise<Outage> }> = [
  { kind: 'redis', available: redisAvailable, outage: redisOutage },
  { kind: 'postgres', available: postgresAvailable, outage: postgresOutage },
];

const OUTAGE_MS = 3_000;

describe.skipIf(!faultsAvailable)(`Kafka driver with its store unreachable for a while (skipped when ${noFaultsReason})`, () => {
  let broker: TestBroker;

  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available, outage: makeOutage }) => {
    it.skipIf(!available)(
      `the store away for ${OUTAGE_MS} ms mid-run, then back: every job completes, no attempt twice, lag 0`,
      { timeout: 300_000 },
      async () => {
        const outage = await makeOutage();
        const rig = await startRig({
          kind,
          broker,
          storeUrl: outage.url,
          driver: { claimWaitMs: 500 },
          // A run whose ACK the outage lost is reclaimed after this reservation, not the default 30 s.
          engine: { visibilityTimeoutMs: OUTAGE_MS },
        });
        try {
          // The worker's fetches ask for their own reservation (30 s unless told): with it, a run whose ACK the
          // outage lost sat `active` for 30 s before its rescue (most of the test's time on Redis).
          rig.startWorker({ concurrency: 10, workMs: 20, visibilityTimeoutMs: OUTAGE_MS });
          const retry = { maxAttempts: 5, initialInterval: 100, jitter: false };
          const ids = await enqueueJobs(rig.client, 40, { retry });
          await waitUntil('a first stretch of jobs done', () => rig.ledger.entries.length >= 5, 30_000, 20);
          await outage.down();
          await sleep(OUTAGE_MS);
          await outage.up();
          await waitUntil('the store to answer again', () => rig.store.ping().then(() => true), 30_000);
          ids.push(...(await enqueueJobs(rig.client, 10, { retry })));

          await waitAllTerminal(rig.store, ids);
          await waitForZeroLag(broker, rig.namespace);
          const { reruns } = await expectAllCompletedOnce(rig.store, ids, rig.ledger, { exactlyOnce: false });
          console.info(`[store away, ${kind}] ${ids.length} jobs completed; ${reruns} run again after an ACK lost to the outage`);
        } finally {
          await rig.dispose();
          await outage.close();
        }
      },
    );
  });
});
