/**
 * `job.pending`: the dispatcher's move `available → pending` happens in the store outside the engine, so the
 * dispatcher publishes its event on the store's transport; an engine on the driver (what a gateway's SSE stream
 * reads) hears it between the job's `job.enqueued` and `job.started`, once per job.
 */
import { Engine, type OjsEvent } from '@ojskit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaAvailable, startBroker, type TestBroker } from './support/broker.js';
import { eventually } from './support/collector.js';
import { disposeKafka, dropSchema, kafkaDriver, postgresAvailable, postgresStore, redisAvailable, redisStore, uniqueNamespace } from './support/stores.js';

const stores = [
  { kind: 'redis', available: redisAvailable },
  { kind: 'postgres', available: postgresAvailable },
] as const;

describe.skipIf(!kafkaAvailable)('job.pending events of the dispatch move', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  describe.each(stores)('store = $kind', ({ kind, available }) => {
    it.skipIf(!available)(
      'an engine on the driver hears job.pending (from available) for each dispatched job, before job.started',
      { timeout: 60_000 },
      async () => {
        const namespace = uniqueNamespace();
        const store = kind === 'redis' ? redisStore(namespace) : await postgresStore(namespace);
        const driver = await kafkaDriver(broker, store, namespace);
        const engine = new Engine({ driver });
        const heard: OjsEvent[] = [];
        const unsubscribe = engine.subscribe({ queues: ['pend'] }, (event) => heard.push(event));
        try {
          const { jobs } = await engine.enqueueBatch({ jobs: [0, 1, 2].map((i) => ({ type: 'pend.test', queue: 'pend', args: [i] })) });
          const ids = jobs.map((j) => j.id);
          const pendingOf = (id: string) => heard.filter((e) => e.type === 'job.pending' && e.subject === id);
          await eventually('a job.pending event for each job', () => ids.every((id) => pendingOf(id).length > 0));
          for (const id of ids) {
            expect(pendingOf(id)).toHaveLength(1);
            expect(pendingOf(id)[0]!.data).toMatchObject({ job_id: id, job_type: 'pend.test', queue: 'pend', state: 'pending', from: 'available', attempt: 0 });
          }
          const { jobs: claimed } = await engine.fetch({ queues: ['pend'], count: 3, worker_id: 'w' });
          expect(claimed.map((j) => j.id).sort()).toEqual([...ids].sort());
          await eventually('a job.started event for each job', () => ids.every((id) => heard.some((e) => e.type === 'job.started' && e.subject === id)));
          for (const id of ids) {
            const order = heard.filter((e) => e.subject === id).map((e) => e.type);
            expect(order.indexOf('job.enqueued')).toBeLessThan(order.indexOf('job.pending'));
            expect(order.indexOf('job.pending')).toBeLessThan(order.indexOf('job.started'));
            expect(heard.find((e) => e.type === 'job.started' && e.subject === id)!.data).toMatchObject({ from: 'pending', enqueued_at: expect.any(String) });
          }
        } finally {
          unsubscribe();
          await engine.stop();
          await disposeKafka(driver);
          if (kind === 'postgres') await dropSchema(namespace);
        }
      },
    );
  });
});
