/** The BullMQ side of the benchmarks: its `Queue` and `Worker` with documented defaults, driven like ojskit. */
import { Queue, Worker as BullWorker, type ConnectionOptions } from 'bullmq';
import { CHUNK, CONCURRENCY, PRODUCERS, type System } from './ojskit-system.js';
import { latencyProbe } from './latency-probe.js';

/** BullMQ driven through the same `System` shape as ojskit, its keys under `prefix`. */
export function bullmqSystem(url: string, prefix: string): System {
  const parsed = new URL(url);
  const connection: ConnectionOptions = { host: parsed.hostname, port: Number(parsed.port || 6379), maxRetriesPerRequest: null };
  const queues = new Map<string, Queue>();
  const queueOf = (name: string) => {
    let q = queues.get(name);
    if (!q) queues.set(name, (q = new Queue(name, { connection, prefix })));
    return q;
  };
  return {
    name: 'BullMQ',
    async bulk(count, queue) {
      const q = queueOf(queue);
      for (let i = 0; i < count; i += CHUNK) {
        await q.addBulk(Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ name: 'bench.noop', data: [i + k] })));
      }
    },
    async oneByOne(count, queue) {
      const q = queueOf(queue);
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await q.add('bench.noop', [next++]);
        }),
      );
    },
    async process(count, queue) {
      let worker!: BullWorker;
      await new Promise<void>((resolve) => {
        let done = 0;
        worker = new BullWorker(queue, async () => undefined, { connection, prefix, concurrency: CONCURRENCY });
        worker.on('completed', () => {
          if (++done === count) resolve();
        });
      });
      await worker.close();
    },
    latencyProbe(queue) {
      const q = queueOf(queue);
      return latencyProbe(
        async (onStart, onCompleted) => {
          const worker = new BullWorker(
            queue,
            async () => {
              onStart();
            },
            { connection, prefix, concurrency: CONCURRENCY },
          );
          worker.on('completed', onCompleted);
          await worker.waitUntilReady();
          return worker;
        },
        (i) => q.add('bench.noop', [i]),
      );
    },
    async clear() {
      for (const q of queues.values()) await q.obliterate({ force: true });
    },
    async close() {
      for (const q of queues.values()) {
        await q.obliterate({ force: true });
        await q.close();
      }
    },
  };
}
