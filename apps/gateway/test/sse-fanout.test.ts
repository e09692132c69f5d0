/**
 * SSE fan-out (issue 25 item 12): an event is serialised once, however many streams send it, a run of frames
 * is joined once for the streams that send the same run, and every stream still gets its events, in order. The cost itself is measured by bench/sse-fanout.ts, not here.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { describeEachBackend, MEMORY } from './support/backends.js';
import { useHarness } from './support/harness.js';
import { FrameReader } from './support/sse.js';
import { queueName } from './support/flows.js';

// Memory only: what is counted is the gateway's serialisation, the same whatever the store.
describeEachBackend(
  'SSE fan-out',
  (backend) => {
    const h = useHarness(backend);
    afterEach(() => vi.restoreAllMocks());

    it('serialises each event once for 20 subscribers, and each gets all 50 in order', async () => {
      const q = queueName('fan');
      const readers: FrameReader[] = [];
      const controllers: AbortController[] = [];
      for (let i = 0; i < 20; i++) {
        const controller = new AbortController();
        controllers.push(controller);
        const res = await h.gateway.request(`/ojs/v1/events/stream?queues=${q}&types=job.enqueued`, { signal: controller.signal });
        const reader = new FrameReader(res.body!);
        await reader.until((frames) => frames.some((f) => f.comment === 'connected'));
        readers.push(reader);
      }
      const stringify = vi.spyOn(JSON, 'stringify');
      const { res, body } = await h.json('POST', '/ojs/v1/jobs/batch', {
        jobs: Array.from({ length: 50 }, (_, i) => ({ type: 'fan.job', args: [i], options: { queue: q } })),
      });
      expect(res.status).toBe(201);
      const ids = body.jobs.map((j: any) => j.id);
      for (const reader of readers) {
        const frames = await reader.until((all) => all.filter((f) => f.event === 'job.enqueued').length >= 50);
        expect(frames.filter((f) => f.event === 'job.enqueued').map((f) => JSON.parse(f.data!).subject)).toEqual(ids);
      }
      const eventSerialisations = stringify.mock.calls.filter(
        ([value]) =>
          typeof value === 'object' &&
          value !== null &&
          (value as any).type === 'job.enqueued' &&
          typeof (value as any).id === 'string' &&
          (value as any).id.startsWith('evt_'),
      );
      expect(eventSerialisations.length).toBe(50);
      for (const controller of controllers) controller.abort();
    });

    it('joins a run of frames once for subscribers that take the same run, and anew for a run that differs inside', async () => {
      const [a, b, c] = [queueName('run'), queueName('run'), queueName('run')];
      const open = async (queues: string): Promise<{ reader: FrameReader; controller: AbortController }> => {
        const controller = new AbortController();
        const res = await h.gateway.request(`/ojs/v1/events/stream?queues=${queues}&types=job.enqueued`, { signal: controller.signal });
        const reader = new FrameReader(res.body!);
        await reader.until((frames) => frames.some((f) => f.comment === 'connected'));
        return { reader, controller };
      };
      // Same first event, same last, same length: only the middle event differs.
      const viaB = await open(`${a},${b}`);
      const viaC = await open(`${a},${c}`);
      const { res, body } = await h.json('POST', '/ojs/v1/jobs/batch', {
        jobs: [a, b, c, a].map((queue, i) => ({ type: 'fan.run', args: [i], options: { queue } })),
      });
      expect(res.status).toBe(201);
      const ids = body.jobs.map((j: any) => j.id);
      const subjects = async (reader: FrameReader): Promise<string[]> =>
        (await reader.until((all) => all.filter((f) => f.event === 'job.enqueued').length >= 3))
          .filter((f) => f.event === 'job.enqueued')
          .map((f) => JSON.parse(f.data!).subject);
      expect(await subjects(viaB.reader)).toEqual([ids[0], ids[1], ids[3]]);
      expect(await subjects(viaC.reader)).toEqual([ids[0], ids[2], ids[3]]);
      viaB.controller.abort();
      viaC.controller.abort();
    });
  },
  [MEMORY],
);
