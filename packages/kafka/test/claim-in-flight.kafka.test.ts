/**
 * A claim and the jobs this process handed to the log that are still on their way (`InFlight`): in a queue whose
 * jobs were all fresh inserts of one priority it takes the dispatched ones at once and waits only when short (and
 * only until enough arrived); once a second priority was handed over, it waits for every job on its way, so a
 * higher-priority job still in the log is not passed. The records are held back by the test's producer
 * (`HeldQueues`), so "on its way" lasts as long as the case wants.
 */
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { toTimestamp } from '@ojskit/core/formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaDriver } from '../src/index.js';
import { kafkaAvailable, startBroker, type TestBroker } from './support/broker.js';
import { HeldQueues } from './support/dispatch-control.js';
import { disposeKafka, dropSchema, kafkaDriver, postgresAvailable, postgresStore, redisAvailable, redisStore, uniqueNamespace } from './support/stores.js';

const stores = [
  { kind: 'redis', available: redisAvailable },
  { kind: 'postgres', available: postgresAvailable },
] as const;

/** Far longer than any answer of the log here: a claim that took this long waited for the held records. */
const CLAIM_WAIT_MS = 4_000;

describe.skipIf(!kafkaAvailable)('a claim and the jobs still on their way to the log', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    async function rig(): Promise<{ driver: KafkaDriver; engine: Engine; held: HeldQueues; dispose: () => Promise<void> }> {
      const namespace = uniqueNamespace();
      const store: Driver = kind === 'redis' ? redisStore(namespace) : await postgresStore(namespace);
      const held = new HeldQueues(namespace);
      const driver = await kafkaDriver(broker, store, namespace, { claimWaitMs: CLAIM_WAIT_MS }, held);
      const engine = new Engine({ driver });
      return {
        driver,
        engine,
        held,
        dispose: async () => {
          await engine.stop();
          await disposeKafka(driver);
          if (kind === 'postgres') await dropSchema(namespace);
        },
      };
    }

    const claim = async (driver: KafkaDriver, queue: string, limit: number) => {
      const started = Date.now();
      const { jobs } = await driver.jobClaim({ queues: [queue], limit, workerId: 'w', now: Date.now(), nowIso: toTimestamp(Date.now()) });
      return { ids: jobs.map((j) => j.id), ms: Date.now() - started };
    };

    it.skipIf(!available)(
      'one priority: with a store whose calls take effect in order (Redis) takes the dispatched jobs without waiting, and when short waits only for what fills it; elsewhere waits for the jobs on their way',
      { timeout: 60_000 },
      async () => {
        const { driver, engine, held, dispose } = await rig();
        try {
          const enqueue = async (i: number) => (await engine.enqueue({ type: 'claim.test', queue: 'q', args: [i] })).job.id;
          const first = await enqueue(0);
          expect(await driver.dispatched({ timeoutMs: 20_000 })).toBe(true);
          held.hold('q');
          const second = await enqueue(1);
          if (driver.store.capabilities.orderedCalls !== true) {
            // PostgreSQL: the dispatcher's moves of a batch are concurrent statements on a pool, which may commit out
            // of the log's order, so the claim does not pass jobs on their way.
            const waiting = claim(driver, 'q', 2);
            await new Promise((r) => setTimeout(r, 300));
            await held.release('q');
            const got = await waiting;
            expect(got.ids).toEqual([first, second]);
            expect(got.ms).toBeGreaterThanOrEqual(300);
            return;
          }
          const quick = await claim(driver, 'q', 1);
          expect(quick.ids).toEqual([first]);
          expect(quick.ms).toBeLessThan(CLAIM_WAIT_MS / 2);
          // Short now: the claim waits for the held job, which arrives when released.
          const waiting = claim(driver, 'q', 1);
          await new Promise((r) => setTimeout(r, 300));
          await held.release('q');
          expect((await waiting).ids).toEqual([second]);
        } finally {
          await dispose();
        }
      },
    );

    it.skipIf(!available)('a second priority: waits for the jobs on their way, and the higher priority goes first', { timeout: 60_000 }, async () => {
      const { driver, engine, held, dispose } = await rig();
      try {
        const low = (await engine.enqueue({ type: 'claim.test', queue: 'q', args: [0] })).job.id;
        expect(await driver.dispatched({ timeoutMs: 20_000 })).toBe(true);
        held.hold('q');
        const high = (await engine.enqueue({ type: 'claim.test', queue: 'q', args: [1], options: { priority: 10 } })).job.id;
        const waiting = claim(driver, 'q', 1);
        await new Promise((r) => setTimeout(r, 300));
        await held.release('q');
        const got = await waiting;
        expect(got.ids).toEqual([high]);
        expect(got.ms).toBeGreaterThanOrEqual(300);
        expect((await claim(driver, 'q', 1)).ids).toEqual([low]);
      } finally {
        await dispose();
      }
    });
  });
});
