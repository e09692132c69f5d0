/**
 * Where ojskit's processing time goes: runs only the "process N queued jobs" scenario (SDK Worker and the
 * engine loop of ojskit-worker.ts, both set up as run.ts sets them up) and prints Node and PostgreSQL CPU per job, plus, when the server has
 * pg_stat_statements loaded (`shared_preload_libraries`), each statement's calls and execution time per job.
 * With BENCH_CPU_PROFILE=<prefix>, the Node side of each measured run is written to <prefix>-<mode>.cpuprofile
 * (open it in Chrome DevTools or VS Code).
 *
 * Usage: pnpm bench:breakdown  (env: DATABASE_URL, BENCH_JOBS=20000, BENCH_MODE=sdk|engine|both, BENCH_SDK_OPTIONS, BENCH_CPU_PROFILE,
 *        BENCH_EVENTS=0 to run without LISTEN/NOTIFY)
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Engine } from '@ojskit/core';
import { Worker } from '@ojskit/client';
import pg from 'pg';
import { createPostgresDriver } from '../src/index.js';
import { EngineWorker } from './ojskit-worker.js';
import { measure, table, watchServer, type Sample } from './measure.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 20_000);
const MODE = process.env['BENCH_MODE'] ?? 'both';
const PROFILE = process.env['BENCH_CPU_PROFILE'];
const CONCURRENCY = 50;
const PREFETCH = 500;
const CHUNK = 1_000;
const schema = `ojs_breakdown_${randomBytes(3).toString('hex')}`;
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
watchServer((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const driver = await createPostgresDriver(DATABASE_URL, { schema, max: 10, events: process.env['BENCH_EVENTS'] !== '0' });
const engine = new Engine({ driver, maxBatchSize: CHUNK }).start();
const statements = await admin
  .query(`SELECT 1 FROM pg_stat_statements LIMIT 1`)
  .then(() => true)
  .catch(() => false);

async function enqueue(queue: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += CHUNK) {
    await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
  }
  await driver.analyze();
}

/** Waits until `started()` handlers ran, then polls until PostgreSQL holds `count` of the queue's jobs as completed. */
async function until(queue: string, count: number, started: () => number): Promise<void> {
  while (started() < count) await sleep(1);
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".jobs_finished WHERE queue = $1 AND state = 'completed'`, [
      queue,
    ]);
    if (rows[0]!.n >= count) return;
    await sleep(1);
  }
}

const runners: Record<string, (queue: string, count: number) => Promise<void>> = {
  async sdk(queue, count) {
    // Configured as run.ts configures it, so the two benchmarks' SDK figures compare.
    const worker = new Worker(engine, {
      queues: [queue],
      concurrency: CONCURRENCY,
      prefetch: PREFETCH,
      fetchBatchSize: PREFETCH / 2,
      ackBatch: { maxSize: PREFETCH, maxDelayMs: 0, maxInFlight: 2 },
      ...(JSON.parse(process.env['BENCH_SDK_OPTIONS'] ?? '{}') as object),
    });
    let started = 0;
    worker.register('bench.noop', async () => void started++);
    worker.start();
    await until(queue, count, () => started);
    await worker.close();
  },
  async engine(queue, count) {
    let started = 0;
    const worker = new EngineWorker(engine, { queue, concurrency: CONCURRENCY, prefetch: PREFETCH, workerId: 'bench', onStart: () => void started++ }).start();
    await until(queue, count, () => started);
    await worker.stop();
  },
};

interface StatementRow {
  query: string;
  calls: string;
  total_exec_time: number;
  total_plan_time: number;
  rows: string;
}

for (const mode of MODE === 'both' ? ['engine', 'sdk'] : [MODE]) {
  const run = runners[mode]!;
  await enqueue(`warm-${mode}`, 500);
  await run(`warm-${mode}`, 500);
  await enqueue(`work-${mode}`, N);
  if (statements) await admin.query('SELECT pg_stat_statements_reset()');
  const session = PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    // 100 µs rather than the default 1 ms: a run of 20 000 jobs then yields enough samples per function.
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const sample: Sample = await measure(() => run(`work-${mode}`, N));
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${PROFILE}-${mode}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
  console.log(
    `\nojskit ${mode}: ${N} jobs in ${sample.seconds.toFixed(2)} s = ${Math.round(N / sample.seconds)} jobs/s; ` +
      `Node ${(sample.nodeCpuUs / N).toFixed(1)} µs/job (kernel ${(sample.nodeSystemUs / N).toFixed(1)}), Postgres ${(sample.postgresCpuUs / N).toFixed(1)} µs/job`,
  );
  if (!statements) continue;
  const { rows } = await admin.query<StatementRow>(
    `SELECT query, calls, total_exec_time, total_plan_time, rows FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 8`,
  );
  console.log(
    table(
      ['statement', 'calls', 'rows', 'exec µs/job', 'plan µs/job'],
      rows.map((r) => [
        /^--\s*([\w.#]+):/.exec(r.query)?.[1] ?? r.query.replace(/\s+/g, ' ').slice(0, 60),
        Number(r.calls),
        Number(r.rows),
        (r.total_exec_time * 1000) / N,
        (r.total_plan_time * 1000) / N,
      ]),
    ),
  );
}

await engine.close();
await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
await admin.end();
process.exit(0);
