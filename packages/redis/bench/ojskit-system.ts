/** The ojskit side of the benchmarks: the SDK `Client` and `Worker` over an in-process `Engine` on RedisDriver. */
import { Engine } from '@ojskit/core';
import { Client, Worker, type WorkerOptions } from '@ojskit/client';
import { RedisDriver } from '../src/index.js';
import { latencyProbe, type LatencyProbe } from './latency-probe.js';

export const CONCURRENCY = 50;
export const PRODUCERS = 50;
/** Jobs per bulk enqueue call. */
export const CHUNK = 1_000;

/** One system under test, driven the same way for each. */
export interface System {
  name: string;
  bulk(count: number, queue: string): Promise<void>;
  oneByOne(count: number, queue: string): Promise<void>;
  /** Starts a worker on `queue`; resolves when it completed `count` jobs. */
  process(count: number, queue: string): Promise<void>;
  /** Starts an idle worker on `queue` for latency samples (see LatencyProbe). */
  latencyProbe(queue: string): Promise<LatencyProbe>;
  /** Deletes everything the system stored so far (between rounds, outside any measurement). */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/**
 * ojskit as a user runs it (SDK worker defaults unless `workerOptions` overrides some, for A/B runs);
 * `driver` is exposed for the breakdown's script-level probes. `history`: the driver's option (default: on,
 * unless the environment says BENCH_HISTORY=off).
 */
export function ojskitSystem(
  url: string,
  prefix: string,
  workerOptions: WorkerOptions = {},
  name = 'ojskit',
  history = process.env.BENCH_HISTORY !== 'off',
): System & { driver: RedisDriver } {
  const driver = new RedisDriver({ url, prefix, checkMemoryPolicy: false, history });
  const engine = new Engine({ driver }).start();
  const client = new Client(engine);
  const noop = async () => undefined;
  return {
    name,
    driver,
    async bulk(count, queue) {
      for (let i = 0; i < count; i += CHUNK) {
        await client.enqueueMany(Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', args: [i + k], options: { queue } })));
      }
    },
    async oneByOne(count, queue) {
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await client.enqueue('bench.noop', [next++], { queue });
        }),
      );
    },
    async process(count, queue) {
      const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY, ...workerOptions });
      worker.register('bench.noop', noop);
      await new Promise<void>((resolve) => {
        let done = 0;
        worker.on('completed', () => {
          if (++done === count) resolve();
        });
        worker.start();
      });
      await worker.close();
    },
    latencyProbe(queue) {
      return latencyProbe(
        async (onStart, onCompleted) => {
          const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY, ...workerOptions });
          worker.register('bench.noop', async () => {
            onStart();
          });
          worker.on('completed', onCompleted);
          worker.start();
          return worker;
        },
        (i) => client.enqueue('bench.noop', [i], { queue }),
      );
    },
    async clear() {
      await driver.reset();
    },
    async close() {
      await driver.reset();
      await engine.close();
    },
  };
}
