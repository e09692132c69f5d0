/**
 * Statements per processed job: processes BENCH_JOBS queued no-op jobs with the SDK Worker (default options at
 * concurrency 50, or BENCH_SDK_OPTIONS) or the bench's engine loop (BENCH_MODE=engine), and prints how many
 * statements of each kind the driver sent, per 1 000 jobs. A count, unlike a time, does not move with the
 * machine's load: it shows what batching each loop gets.
 *
 * Usage: pnpm bench:round-trips  (env: DATABASE_URL, BENCH_JOBS=20000, BENCH_MODE=sdk|engine, BENCH_SDK_OPTIONS)
 */
import { randomBytes } from 'node:crypto';
import { Engine } from '@ojskit/core';
import { Worker } from '@ojskit/client';
import pg from 'pg';
import { createPostgresDriver } from '../src/index.js';
import { EngineWorker } from './ojskit-worker.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 20_000);
const MODE = process.env['BENCH_MODE'] ?? 'sdk';
const schema = `ojs_trips_${randomBytes(3).toString('hex')}`;

const counts = new Map<string, number>();
let counting = false;
// Every statement goes through a pg Client (a Pool hands the query to one): count there, by prepared name.
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const config = args[0] as string | { name?: string; text?: string };
    const key = typeof config === 'string' ? config.slice(0, 30) : (config.name?.split(':').pop() ?? config.text?.slice(0, 30) ?? '?');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return clientQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

const driver = await createPostgresDriver(DATABASE_URL, { schema, max: 10 });
const engine = new Engine({ driver, maxBatchSize: 1_000 }).start();
const queue = 'trips';
for (let i = 0; i < N; i += 1_000) {
  await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(1_000, N - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
}
await driver.analyze();

let started = 0;
counting = true;
if (MODE === 'engine') {
  const worker = new EngineWorker(engine, { queue, concurrency: 50, prefetch: 500, workerId: 'trips', onStart: () => void started++ }).start();
  while (started < N) await new Promise((resolve) => setTimeout(resolve, 5));
  await worker.stop();
} else {
  const worker = new Worker(engine, { queues: [queue], concurrency: 50, ...(JSON.parse(process.env['BENCH_SDK_OPTIONS'] ?? '{}') as object) });
  worker.register('bench.noop', async () => void started++);
  worker.start();
  while (started < N) await new Promise((resolve) => setTimeout(resolve, 5));
  await worker.close();
}
counting = false;

const total = [...counts.values()].reduce((a, b) => a + b, 0);
console.log(`${MODE} ${process.env['BENCH_SDK_OPTIONS'] ?? ''}: ${N} jobs, ${total} statements (${((total * 1000) / N).toFixed(1)} per 1 000 jobs)`);
for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1]))
  console.log(`  ${name.padEnd(32)} ${String(n).padStart(6)}  ${((n * 1000) / N).toFixed(1).padStart(7)} per 1 000 jobs`);
await engine.close();
const admin = new pg.Client(DATABASE_URL);
await admin.connect();
await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
await admin.end();
process.exit(0);
