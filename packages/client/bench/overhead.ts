/**
 * Worker overhead per job, with fetch+ACK batching on and off, on the memory backend (so the figure is the
 * SDK's own cost, not a store's). Redis and PostgreSQL worker benchmarks live in those adapters' bench/
 * folders: the client cannot depend on its adapters without a package cycle.
 *
 * For each mode it drains a queue of pre-enqueued no-op jobs twice: once with a bare protocol loop
 * (FETCH → ACK straight on the engine, no handler machinery) and once through `Worker`. The worker's
 * overhead is the difference in µs/job. Run: `pnpm --filter @ojskit/client bench` (JOBS=… to resize).
 */
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { MemoryDriver } from '@ojskit/memory';
import { Client, Worker, type WorkerOptions } from '../src/index.js';

const JOBS = Number(process.env.JOBS ?? 20_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

/** A fresh, empty store for one run. */
async function freshDriver(): Promise<{ driver: Driver; cleanup: () => Promise<void> }> {
  return { driver: new MemoryDriver(), cleanup: async () => {} };
}

interface Mode {
  name: string;
  fetchCount: number;
  batchAcks: boolean;
  worker: WorkerOptions;
}

const MODES: Mode[] = [
  {
    name: 'batching on ',
    fetchCount: CONCURRENCY,
    batchAcks: true,
    worker: { concurrency: CONCURRENCY, ackBatch: { maxSize: 100, maxDelayMs: 5 } },
  },
  {
    name: 'batching off',
    fetchCount: 1,
    batchAcks: false,
    worker: { concurrency: CONCURRENCY, fetchBatchSize: 1, ackBatch: false },
  },
];

async function freshEngine(): Promise<{ engine: Engine; cleanup: () => Promise<void> }> {
  const { driver, cleanup } = await freshDriver();
  const engine = new Engine({ driver });
  const client = new Client(engine);
  for (let i = 0; i < JOBS; i += 1_000) {
    await client.enqueueMany(Array.from({ length: Math.min(1_000, JOBS - i) }, (_, k) => ({ type: 'noop', args: [i + k] })));
  }
  return {
    engine,
    cleanup: async () => {
      await cleanup();
      await engine.close();
    },
  };
}

/**
 * Drains the queue with the same protocol calls as the worker in this mode (FETCH of `fetchCount`, then one
 * `ackMany` or one ACK per job), back to back, with no handler machinery: the floor the worker is measured
 * against. (The worker may beat it when batching is off: it overlaps ACKs with the next FETCH.)
 */
async function bareLoop(engine: Engine, mode: Mode): Promise<number> {
  const started = performance.now();
  let done = 0;
  for (;;) {
    const { jobs } = await engine.fetch({ queues: ['default'], count: mode.fetchCount, worker_id: 'bare' });
    if (jobs.length === 0) break;
    if (mode.batchAcks) await engine.ackMany({ acks: jobs.map((j) => ({ job_id: j.id, worker_id: 'bare' })) });
    else for (const job of jobs) await engine.ack({ job_id: job.id, worker_id: 'bare' });
    done += jobs.length;
  }
  if (done !== JOBS) throw new Error(`bare loop drained ${done} of ${JOBS}`);
  return performance.now() - started;
}

/** Drains the queue through a Worker running a no-op handler. */
async function workerRun(engine: Engine, mode: Mode): Promise<{ ms: number; fetchCalls: number; ackCalls: number }> {
  const worker = new Worker(engine, { ...mode.worker, pollWaitMs: 0, listen: false });
  worker.register('noop', () => undefined);
  let completed = 0;
  const finished = new Promise<void>((resolve) => {
    worker.on('completed', () => {
      if (++completed === JOBS) resolve();
    });
  });
  worker.on('error', (error) => console.error(error));
  const started = performance.now();
  worker.start();
  await finished;
  const ms = performance.now() - started;
  const { fetchCalls, ackCalls } = worker.stats;
  await worker.close();
  return { ms, fetchCalls, ackCalls };
}

const perJob = (ms: number): number => (ms * 1000) / JOBS;
const perSecond = (ms: number): number => Math.round(JOBS / (ms / 1000));
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log(`worker overhead on memory: ${JOBS} no-op jobs, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds (node ${process.version})`);
  console.log('mode          | bare loop µs/job | worker µs/job | worker jobs/s | overhead µs/job | fetch calls | ack calls');
  for (const mode of MODES) {
    const bare: number[] = [];
    const runs: Array<{ ms: number; fetchCalls: number; ackCalls: number }> = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const a = await freshEngine();
      const bareMs = await bareLoop(a.engine, mode);
      await a.cleanup();
      const b = await freshEngine();
      const run = await workerRun(b.engine, mode);
      await b.cleanup();
      if (round === 0) continue; // warm-up
      bare.push(bareMs);
      runs.push(run);
    }
    const workerMs = median(runs.map((r) => r.ms));
    const bareMs = median(bare);
    const typical = runs.find((r) => r.ms === workerMs)!;
    console.log(
      [
        mode.name,
        perJob(bareMs).toFixed(1).padStart(16),
        perJob(workerMs).toFixed(1).padStart(13),
        String(perSecond(workerMs)).padStart(13),
        (perJob(workerMs) - perJob(bareMs)).toFixed(1).padStart(15),
        String(typical.fetchCalls).padStart(11),
        String(typical.ackCalls).padStart(9),
      ].join(' | '),
    );
  }
}

await main();
