/**
 * Lifecycles per second on the memory driver: enqueue → claim → ack, through the Engine (batched and one
 * at a time) and through the driver primitives alone. Prints figures; asserts nothing.
 *
 * Run: `pnpm bench` in packages/memory (options: `--jobs N`, `--batch N`, `--rounds N`).
 */
import { parseArgs } from 'node:util';
import { Engine, newId, systemClock, type StoredJob } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    jobs: { type: 'string', default: '200000' },
    batch: { type: 'string', default: '1000' },
    single: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
  },
});
const JOBS = Number(values.jobs);
const BATCH = Number(values.batch);
const SINGLE = Number(values.single);
const ROUNDS = Number(values.rounds);
const QUEUE = 'bench';

interface Result {
  name: string;
  lifecycles: number;
  ms: number;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function report(r: Result): void {
  const rate = Math.round((r.lifecycles / r.ms) * 1000);
  console.log(`${r.name.padEnd(44)} ${String(rate.toLocaleString('en-US')).padStart(10)} lifecycles/s  (${r.lifecycles} in ${r.ms.toFixed(0)} ms)`);
}

/** The best of `ROUNDS` runs, so a GC pause or a neighbour's build does not decide the figure. */
async function best(name: string, run: () => Promise<Result>): Promise<void> {
  let top: Result | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await run();
    if (top === undefined || r.lifecycles / r.ms > top.lifecycles / top.ms) top = r;
  }
  report({ ...top!, name });
}

function newEngine(): Engine {
  return new Engine({ driver: new MemoryDriver(), onError: (err) => console.error(err) });
}

/** enqueueBatch of BATCH, fetch count BATCH, ackMany of BATCH, repeated until JOBS. */
async function engineBatched(): Promise<Result> {
  const engine = newEngine();
  const start = performance.now();
  for (let done = 0; done < JOBS; done += BATCH) {
    const jobs = Array.from({ length: BATCH }, (_, i) => ({ type: 'bench.job', args: [done + i, 'payload'], options: { queue: QUEUE } }));
    await engine.enqueueBatch({ jobs });
    const fetched = await engine.fetch({ queues: [QUEUE], count: BATCH, worker_id: 'bench' });
    const res = await engine.ackMany({ acks: fetched.jobs.map((j) => ({ job_id: j.id })) });
    if (res.results.length !== BATCH || !res.results.every((r) => r.ok)) throw new Error('batch lifecycle failed');
  }
  const ms = performance.now() - start;
  await engine.close();
  return { name: '', lifecycles: JOBS, ms };
}

/** enqueue, fetch count 1, ack: one job at a time. */
async function engineSingle(): Promise<Result> {
  const engine = newEngine();
  const start = performance.now();
  for (let i = 0; i < SINGLE; i++) {
    await engine.enqueue({ type: 'bench.job', args: [i, 'payload'], options: { queue: QUEUE } });
    const fetched = await engine.fetch({ queues: [QUEUE], count: 1, worker_id: 'bench' });
    await engine.ack({ job_id: fetched.jobs[0]!.id });
  }
  const ms = performance.now() - start;
  await engine.close();
  return { name: '', lifecycles: SINGLE, ms };
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

/** jobInsert of BATCH, jobClaim of BATCH, jobTransitionMany (ack, summary): the driver's own ceiling. */
async function driverBatched(): Promise<Result> {
  const driver = new MemoryDriver();
  const start = performance.now();
  for (let done = 0; done < JOBS; done += BATCH) {
    const now = systemClock.now();
    const nowIso = new Date(now).toISOString();
    const jobs = Array.from({ length: BATCH }, (_, i) => storedJob(done + i, nowIso));
    await driver.jobInsert({ jobs, now, nowIso });
    const claimed = await driver.jobClaim({ queues: [QUEUE], limit: BATCH, workerId: 'bench', now, nowIso });
    await driver.jobTransitionMany(
      claimed.jobs.map((j) => ({
        id: j.id,
        from: ['active'],
        to: 'completed',
        expect: { attempt: j.attempt },
        set: { completed_at: nowIso },
        x: { finishedAt: now, visibleUntil: null, timeoutAt: null },
        returning: 'summary',
      })),
    );
  }
  const ms = performance.now() - start;
  return { name: '', lifecycles: JOBS, ms };
}

/** Claim cost with a deep backlog: BACKLOG available jobs, then batches drained off the top. */
async function driverBacklog(): Promise<Result> {
  const driver = new MemoryDriver();
  const now = systemClock.now();
  const nowIso = new Date(now).toISOString();
  for (let done = 0; done < JOBS; done += 10_000) {
    await driver.jobInsert({ jobs: Array.from({ length: 10_000 }, (_, i) => ({ ...storedJob(done + i, nowIso), job: { ...storedJob(done + i, nowIso).job, priority: (done + i) % 7 } })), now, nowIso });
  }
  const start = performance.now();
  let claimed = 0;
  for (;;) {
    const res = await driver.jobClaim({ queues: [QUEUE], limit: BATCH, workerId: 'bench', now, nowIso });
    if (res.jobs.length === 0) break;
    claimed += res.jobs.length;
  }
  const ms = performance.now() - start;
  return { name: '', lifecycles: claimed, ms };
}

async function heapAfter(): Promise<void> {
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
    `heap: ${mib(held)} for ${JOBS} available jobs (${Math.round(held / JOBS)} B/job)${gc ? '' : ' (run with --expose-gc for a settled figure)'}; process heap ${mib(process.memoryUsage().heapUsed)}`,
  );
  await engine.close();
}

console.log(`memory driver lifecycle bench: ${JOBS} jobs, batch ${BATCH}, single ${SINGLE}, best of ${ROUNDS} (node ${process.version})`);
await best('driver batched (insert/claim/transitionMany)', driverBatched);
await best(`driver claim from a backlog of ${JOBS}`, driverBacklog);
await best('engine batched (enqueueBatch/fetch/ackMany)', engineBatched);
await best('engine single (enqueue/fetch/ack)', engineSingle);
await heapAfter();
