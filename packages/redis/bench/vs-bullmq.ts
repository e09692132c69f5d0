/**
 * ojskit on Redis vs BullMQ: same Redis, same run, same workload (issue 4).
 *   1. enqueue N in bulk (chunks of 1 000)          4. latency with an idle worker: enqueue→start and
 *   2. enqueue N one by one from 50 producers           enqueue→completed (p50/p95/p99)
 *   3. process N already-queued no-op jobs at concurrency 50
 * ojskit runs through its SDK (`@ojskit/client` Client and Worker, in-process Engine over RedisDriver):
 * batched claims (fetch sized to free slots, two in flight while there is a backlog) and batched acks. BullMQ 6 runs its Queue and Worker.
 *
 * Usage: pnpm bench  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_LATENCY_SAMPLES=500)
 */
import { randomUUID } from 'node:crypto';
import { Queue, Worker as BullWorker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { Engine } from '@ojskit/core';
import { Client, Worker } from '@ojskit/client';
import { RedisDriver } from '../src/index.js';
import { latencySummary, measure, table, type Sample } from './measure.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 500);
const CONCURRENCY = 50;
const PRODUCERS = 50;
const CHUNK = 1_000;
const run = randomUUID().slice(0, 8);
// The SDK defaults: ACKs go out at the end of each event-loop turn, or as soon as the previous batch is answered.
const WORKER_OPTIONS = {};

const parsed = new URL(url);
const connection: ConnectionOptions = { host: parsed.hostname, port: Number(parsed.port || 6379), maxRetriesPerRequest: null };
const admin = new Redis(url);

// ---------------------------------------------------------------- the two systems

interface System {
  name: string;
  bulk(count: number, queue: string): Promise<void>;
  oneByOne(count: number, queue: string): Promise<void>;
  /** Starts a worker on `queue`; resolves when it completed `count` jobs. */
  process(count: number, queue: string): Promise<void>;
  latency(samples: number, queue: string): Promise<{ start: number[]; done: number[] }>;
  close(): Promise<void>;
}

function ojskit(): System {
  const driver = new RedisDriver({ url, prefix: `ojsbench:${run}`, checkMemoryPolicy: false });
  const engine = new Engine({ driver }).start();
  const client = new Client(engine);
  const noop = async () => undefined;
  return {
    name: 'ojskit',
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
      const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY, ...WORKER_OPTIONS });
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
    async latency(samples, queue) {
      const start: number[] = [];
      const done: number[] = [];
      let t0 = 0;
      let onDone: () => void = () => {};
      const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY, ...WORKER_OPTIONS });
      worker.register('bench.noop', async () => {
        start.push(performance.now() - t0);
      });
      worker.on('completed', () => {
        done.push(performance.now() - t0);
        onDone();
      });
      worker.start();
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < samples; i++) {
        const finished = new Promise<void>((r) => (onDone = r));
        t0 = performance.now();
        await client.enqueue('bench.noop', [i], { queue });
        await finished;
      }
      await worker.close();
      return { start, done };
    },
    async close() {
      await driver.reset();
      await engine.close();
    },
  };
}

function bullmq(): System {
  const prefix = `bullbench:${run}`;
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
      await Promise.all(Array.from({ length: PRODUCERS }, async () => {
        while (next < count) await q.add('bench.noop', [next++]);
      }));
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
    async latency(samples, queue) {
      const q = queueOf(queue);
      const start: number[] = [];
      const done: number[] = [];
      let t0 = 0;
      let onDone: () => void = () => {};
      const worker = new BullWorker(queue, async () => {
        start.push(performance.now() - t0);
      }, { connection, prefix, concurrency: CONCURRENCY });
      worker.on('completed', () => {
        done.push(performance.now() - t0);
        onDone();
      });
      await worker.waitUntilReady();
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < samples; i++) {
        const finished = new Promise<void>((r) => (onDone = r));
        t0 = performance.now();
        await q.add('bench.noop', [i]);
        await finished;
      }
      await worker.close();
      return { start, done };
    },
    async close() {
      for (const q of queues.values()) {
        await q.obliterate({ force: true });
        await q.close();
      }
    },
  };
}

// ---------------------------------------------------------------- the run

const systems = [ojskit(), bullmq()];
const results: Record<string, Record<string, Sample>> = {};
const latencies: Record<string, { start: number[]; done: number[] }> = {};
const record = (system: string, scenario: string, sample: Sample) => ((results[system] ??= {})[scenario] = sample);

console.log(`ojskit vs BullMQ on ${url}: ${N} jobs, concurrency ${CONCURRENCY}, ${PRODUCERS} producers, run ${run}`);
// Warm-up (script loading, JIT) so neither side pays it inside a measurement.
for (const s of systems) {
  await s.bulk(500, 'warm');
  await s.process(500, 'warm');
}
for (const s of systems) {
  record(s.name, 'bulk', await measure(admin, () => s.bulk(N, `bulk-${run}`)));
  record(s.name, 'oneByOne', await measure(admin, () => s.oneByOne(N, `single-${run}`)));
  await s.bulk(N, `work-${run}`);
  record(s.name, 'process', await measure(admin, () => s.process(N, `work-${run}`)));
  latencies[s.name] = await s.latency(LATENCY_SAMPLES, `lat-${run}`);
  console.log(`  ${s.name} done`);
}
for (const s of systems) await s.close();
await admin.quit();

// ---------------------------------------------------------------- report

const [ours, theirs] = ['ojskit', 'BullMQ'] as const;
const rate = (s: Sample) => N / s.seconds;
const rows: Array<Array<string | number>> = [];
const scenarios: Array<[string, string]> = [['bulk', 'enqueue bulk (jobs/s)'], ['oneByOne', 'enqueue 1-by-1, 50 producers (jobs/s)'], ['process', 'process, concurrency 50 (jobs/s)']];
for (const [key, label] of scenarios) {
  const a = results[ours]![key]!;
  const b = results[theirs]![key]!;
  rows.push([label, rate(a), rate(b), `${(rate(a) / rate(b)).toFixed(2)}×`]);
  rows.push([`  Node CPU per job (µs)`, a.nodeCpuUs / N, b.nodeCpuUs / N, `${(a.nodeCpuUs / b.nodeCpuUs).toFixed(2)}×`]);
  rows.push([`  Redis CPU per job (µs)`, a.redisCpuUs / N, b.redisCpuUs / N, `${(a.redisCpuUs / b.redisCpuUs).toFixed(2)}×`]);
}
for (const kind of ['start', 'done'] as const) {
  const a = latencySummary(latencies[ours]![kind]);
  const b = latencySummary(latencies[theirs]![kind]);
  const label = kind === 'start' ? 'enqueue→start' : 'enqueue→completed';
  for (const p of ['p50', 'p95', 'p99'] as const) {
    rows.push([`${label} ${p} (ms, lower is better)`, a[p], b[p], `${(b[p] / a[p]).toFixed(2)}× faster`]);
  }
}
console.log(`\n${table(['scenario', 'ojskit', 'BullMQ', 'ratio'], rows)}\n`);
console.log('Ratios: throughput rows are ojskit/BullMQ (higher is better); CPU rows ojskit/BullMQ (lower is better);');
console.log('latency rows BullMQ/ojskit (above 1 means ojskit is faster). Redis CPU includes anything else the server ran meanwhile.');
process.exit(0);
