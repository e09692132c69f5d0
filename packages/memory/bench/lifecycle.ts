/**
 * Lifecycles per second on the memory driver: enqueue → claim → ack, through the Engine (batched and one
 * at a time) and through the driver primitives alone. Prints figures; asserts nothing.
 *
 * Run: `pnpm bench` in packages/memory (options: `--jobs N`, `--batch N`, `--rounds N`).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Engine, systemClock } from '@ojskit/core';
import type { StoredJob } from '@ojskit/core/driver';
import { newId } from '@ojskit/core/formats';
import { MemoryDriver } from '../src/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    jobs: { type: 'string', default: '200000' },
    batch: { type: 'string', default: '1000' },
    single: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    /** Run only the workloads whose names contain this text (e.g. `engine batched`), for profiling. */
    only: { type: 'string', default: '' },
  },
});
const JOBS = Number(values.jobs);
const BATCH = Number(values.batch);
const SINGLE = Number(values.single);
const ROUNDS = Number(values.rounds);
const QUEUE = 'bench';

interface Result {
  lifecycles: number;
  /** Wall-clock time. */
  ms: number;
  /** CPU time of this process (user + system, every thread, GC included). */
  cpuMs: number;
}

/** Times `body`, wall clock and CPU. */
async function timed(lifecycles: number, body: () => Promise<void>): Promise<Result> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await body();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { lifecycles, ms, cpuMs: (used.user + used.system) / 1000 };
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const perSecond = (n: number, ms: number): string =>
  Math.round((n / ms) * 1000)
    .toLocaleString('en-US')
    .padStart(9);

/** Issue #2's goal for full lifecycles through the engine, batched and one at a time. */
const TARGET = 200_000;

/** Best rates (wall, CPU) of each workload that ran, by name. */
const rates = new Map<string, { wall: number; cpu: number }>();

/** The best of `ROUNDS` runs (by wall clock and by CPU time), so a GC pause or a neighbour's build does not decide the figure. */
async function best(name: string, run: () => Promise<Result>): Promise<void> {
  if (!name.includes(values.only)) return;
  let wall: Result | undefined;
  let cpu: Result | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await run();
    if (wall === undefined || r.lifecycles / r.ms > wall.lifecycles / wall.ms) wall = r;
    if (cpu === undefined || r.lifecycles / r.cpuMs > cpu.lifecycles / cpu.cpuMs) cpu = r;
  }
  rates.set(name, { wall: (wall!.lifecycles / wall!.ms) * 1000, cpu: (cpu!.lifecycles / cpu!.cpuMs) * 1000 });
  console.log(
    `${name.padEnd(46)} ${perSecond(wall!.lifecycles, wall!.ms)} /s wall  ${perSecond(cpu!.lifecycles, cpu!.cpuMs)} /s cpu  (${wall!.lifecycles} in ${wall!.ms.toFixed(0)} ms)`,
  );
}

function newEngine(): Engine {
  return new Engine({ driver: new MemoryDriver(), onError: (err) => console.error(err) });
}

/** enqueueBatch of BATCH, fetch count BATCH, ackMany of BATCH, repeated until JOBS. */
async function engineBatched(): Promise<Result> {
  const engine = newEngine();
  const result = await timed(JOBS, async () => {
    for (let done = 0; done < JOBS; done += BATCH) {
      const jobs = Array.from({ length: BATCH }, (_, i) => ({ type: 'bench.job', args: [done + i, 'payload'], options: { queue: QUEUE } }));
      await engine.enqueueBatch({ jobs });
      const fetched = await engine.fetch({ queues: [QUEUE], count: BATCH, worker_id: 'bench' });
      const res = await engine.ackMany({ acks: fetched.jobs.map((j) => ({ job_id: j.id })) });
      if (res.results.length !== BATCH || !res.results.every((r) => r.ok)) throw new Error('batch lifecycle failed');
    }
  });
  await engine.close();
  return result;
}

/** enqueue, fetch count 1, ack: one job at a time. */
async function engineSingle(): Promise<Result> {
  const engine = newEngine();
  const result = await timed(SINGLE, async () => {
    for (let i = 0; i < SINGLE; i++) {
      await engine.enqueue({ type: 'bench.job', args: [i, 'payload'], options: { queue: QUEUE } });
      const fetched = await engine.fetch({ queues: [QUEUE], count: 1, worker_id: 'bench' });
      await engine.ack({ job_id: fetched.jobs[0]!.id });
    }
  });
  await engine.close();
  return result;
}

function storedJob(i: number, nowIso: string): StoredJob {
  return {
    job: {
      specversion: '1.0',
      id: newId(),
      type: 'bench.job',
      queue: QUEUE,
      args: [i, 'payload'],
      meta: {},
      priority: 0,
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      created_at: nowIso,
      enqueued_at: nowIso,
    },
    x: { visibilityMs: 30_000, timeoutMs: 30_000 },
  };
}

/** jobInsert of BATCH, jobClaim of BATCH, jobCompleteMany (summary): the driver's own ceiling. */
async function driverBatched(): Promise<Result> {
  const driver = new MemoryDriver();
  // Inputs are built up front: the figure is the driver's, not the cost of making job ids.
  const createdIso = new Date(systemClock.now()).toISOString();
  const batches = Array.from({ length: Math.ceil(JOBS / BATCH) }, (_, b) => Array.from({ length: BATCH }, (_, i) => storedJob(b * BATCH + i, createdIso)));
  return timed(batches.length * BATCH, async () => {
    for (const jobs of batches) {
      const now = systemClock.now();
      const nowIso = new Date(now).toISOString();
      await driver.jobInsert({ jobs, now, nowIso });
      const claimed = await driver.jobClaim({ queues: [QUEUE], limit: BATCH, workerId: 'bench', now, nowIso });
      const acked = await driver.jobCompleteMany({ jobs: claimed.jobs.map((j) => ({ id: j.id, attempt: j.attempt })), now, nowIso, returning: 'summary' });
      if (acked.length !== BATCH || !acked.every((r) => r.ok)) throw new Error('driver lifecycle failed');
    }
  });
}

/** Claims alone, draining a backlog of JOBS available jobs over 7 priorities, BATCH at a time. */
async function driverBacklog(): Promise<Result> {
  const driver = new MemoryDriver();
  const now = systemClock.now();
  const nowIso = new Date(now).toISOString();
  for (let done = 0; done < JOBS; done += 10_000) {
    const jobs = Array.from({ length: 10_000 }, (_, i) => storedJob(done + i, nowIso));
    for (const s of jobs) s.job.priority = (s.job.args[0] as number) % 7;
    await driver.jobInsert({ jobs, now, nowIso });
  }
  return timed(JOBS, async () => {
    let claimed = 0;
    for (;;) {
      const res = await driver.jobClaim({ queues: [QUEUE], limit: BATCH, workerId: 'bench', now, nowIso });
      if (res.jobs.length === 0) break;
      claimed += res.jobs.length;
    }
    if (claimed !== JOBS) throw new Error(`claimed ${claimed} of ${JOBS}`);
  });
}

/** Heap held by JOBS waiting jobs enqueued through the engine. */
async function heapHeld(): Promise<void> {
  if (!'heap held'.includes(values.only)) return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const engine = newEngine();
  for (let done = 0; done < JOBS; done += BATCH) {
    const jobs = Array.from({ length: BATCH }, (_, i) => ({ type: 'bench.job', args: [done + i, 'payload'], options: { queue: QUEUE } }));
    await engine.enqueueBatch({ jobs });
  }
  gc?.();
  const held = process.memoryUsage().heapUsed - before;
  console.log(
    `heap held by ${JOBS} waiting jobs (engine events buffer included): ${mib(held)}, ${Math.round(held / JOBS)} B/job${gc ? '' : ' (run with --expose-gc for a settled figure)'}`,
  );
  await engine.close();
}

/** Nanoseconds per step of a fixed integer loop: a yardstick to compare runs on differently loaded machines. */
function yardstick(): string {
  const cpu = process.cpuUsage();
  let sum = 0;
  for (let i = 0; i < 50_000_000; i++) sum += i & 7;
  const used = process.cpuUsage(cpu);
  if (sum < 0) console.log(sum);
  return (((used.user + used.system) * 1000) / 50_000_000).toFixed(2);
}

console.log(
  `memory driver lifecycle bench: ${JOBS} jobs, batch ${BATCH}, single ${SINGLE}, best of ${ROUNDS} (node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg()[0]!.toFixed(1)}, yardstick ${yardstick()} ns/step, lower is faster)`,
);
await best('driver batched (insert/claim/transitionMany)', driverBatched);
await best(`driver claims from a backlog of ${JOBS}`, driverBacklog);
await best('engine batched (enqueueBatch/fetch/ackMany)', engineBatched);
await best('engine single (enqueue/fetch/ack)', engineSingle);
await heapHeld();
for (const [name, rate] of rates) {
  if (!name.startsWith('engine')) continue;
  const share = (r: number): string => `${Math.round((r / TARGET) * 100)} %`;
  console.log(
    `target ${TARGET.toLocaleString('en-US')} /s, ${name}: ${share(rate.wall)} wall, ${share(rate.cpu)} cpu (${rate.wall >= TARGET && rate.cpu >= TARGET ? 'reached' : 'not reached'})`,
  );
}
