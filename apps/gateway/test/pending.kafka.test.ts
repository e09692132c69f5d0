/**
 * `pending` on a gateway over the Kafka driver (issue 28): a job the dispatch log delivered and no worker took
 * shows as `pending` in its queue's stats, and its `available → pending` move reaches the SSE stream as a
 * `job.pending` event, before any worker fetched it. With store = Redis and store = PostgreSQL.
 */
import { expect, it } from 'vitest';
import { describeEachBackend } from './support/backends.js';
import { testHarness } from './support/harness.js';
import { KAFKA_POSTGRES, KAFKA_REDIS } from './support/kafka.js';
import { events, FrameReader } from './support/sse.js';

/** Generous: the move crosses the test broker and the store on a machine other suites load too. */
const WAIT_MS = 20_000;

describeEachBackend(
  'pending on a Kafka backend',
  (backend) => {
    it('a delivered job no worker took: job.pending on the SSE stream, pending in the queue stats', { timeout: 60_000 }, async () => {
      const h = await testHarness(backend);
      const queue = 'kafka-pending';
      const res = await h.gateway.request(`/ojs/v1/events/stream?queues=${queue}`, { headers: { Accept: 'text/event-stream' } });
      expect(res.status).toBe(200);
      const stream = new FrameReader(res.body!);
      try {
        await stream.until((frames) => frames.some((f) => f.comment === 'connected'), WAIT_MS);
        const { res: created, body: job } = await h.json<{ job: { id: string } }>('POST', '/ojs/v1/jobs', {
          type: 'kafka.pending',
          args: [],
          options: { queue },
        });
        expect(created.status).toBe(201);
        const id = job.job.id;
        const seen = events(await stream.until((frames) => events(frames).some((e) => e.event === 'job.pending'), WAIT_MS));
        expect(seen.map((e) => e.event)).toEqual(['job.enqueued', 'job.pending']);
        expect(seen[1]!.data).toMatchObject({ subject: id, data: { job_id: id, queue, from: 'available' } });

        await h.dispatchLog!.settle();
        const { res: statsRes, body: stats } = await h.json<{ stats: Record<string, number> }>('GET', `/ojs/v1/queues/${queue}/stats`);
        expect(statsRes.status).toBe(200);
        expect(stats.stats).toMatchObject({ available: 0, pending: 1, active: 0, depth: 1 });
      } finally {
        await stream.cancel();
      }
    });
  },
  [KAFKA_REDIS, KAFKA_POSTGRES],
);
