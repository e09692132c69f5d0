/** The ojskit side of the benchmarks: the SDK `Client` and `Worker` over an in-process `Engine` on RedisDriver. */
import { Engine } from '@ojskit/core';
import { Client, Worker, type WorkerOptions } from '@ojskit/client';
import { RedisDriver } from '../src/index.js';

export const CONCURRENCY = 50;
export const PRODUCERS = 50;
/** Jobs per bulk enqueue call. */
export const CHUNK = 1_000;

/** Resolves after `ms` milliseconds. */
export const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An idle worker on a queue of its own, and a producer that feeds it one job at a time. */
export interface LatencyProbe {
  /**
   * Enqueues one job per entry of `gapsMs`, each once the previous one completed and the worker then idled
   * `gapsMs[i]` ms (0: at once), and records enqueue→start and enqueue→completed (ms).
   */
  run(gapsMs: readonly number[]): Promise<{ start: number[]; done: number[] }>;
  close(): Promise<void>;
}

/**
 * Samples latency through `enqueue` with `startWorker`'s worker: the handler records the start, `completed`
 * the completion (the same loop for each system).
 */
export async function latencyProbe(
  startWorker: (onStart: () => void, onCompleted: () => void) => Promise<{ close(): Promise<void> }>,
  enqueue: (i: number) => Promise<unknown>,
): Promise<LatencyProbe> {
  let t0 = 0;
  let start: number[] = [];
  let done: number[] = [];
  let onDone: () => void = () => {};
  const worker = await startWorker(
    () => {
      start.push(performance.now() - t0);
    },
    () => {
      done.push(performance.now() - t0);
      onDone();
    },
  );
  // Let the worker settle into its idle wait before the first sample.
  await idle(200);
  return {
    async run(gapsMs) {
      start = [];
      done = [];
      for (let i = 0; i < gapsMs.length; i++) {
        if (gapsMs[i]! > 0) await idle(gapsMs[i]!);
        const finished = new Promise<void>((r) => (onDone = r));
        t0 = performance.now();
        await enqueue(i);
        await finished;
      }
      return { start, done };
    },
    close: () => worker.close(),
  };
}

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
 * `driver` is exposed for the breakdown's script-level probes.
 */
export function ojskitSystem(url: string, prefix: string, workerOptions: WorkerOptions = {}, name = 'ojskit'): System & { driver: RedisDriver } {
  const driver = new RedisDriver({ url, prefix, checkMemoryPolicy: false });
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
      await Promise.all(Array.from({ length: PRODUCERS }, async () => {
        while (next < count) await client.enqueue('bench.noop', [next++], { queue });
      }));
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
