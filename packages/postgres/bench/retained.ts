/**
 * Does a large retention slow the hot path? Two schemas, one empty and one holding BENCH_RETAINED finished jobs
 * (default 1,000,000, in today's partition of `jobs_finished`), run the same work in alternating rounds:
 *   - processing: BENCH_JOBS queued no-op jobs through the benchmark's engine loop (concurrency 50, as run.ts);
 *   - claim latency: 200 FETCHes of 50 from a backlog, one at a time (each acknowledged before the next).
 * Prints each round and the medians, retained against empty.
 *
 * Usage: pnpm bench:retained  (env: DATABASE_URL, BENCH_JOBS=20000, BENCH_RETAINED=1000000, BENCH_ROUNDS=3)
 */
import { randomBytes } from 'node:crypto';
import { Engine } from '@ojskit/core';
import pg from 'pg';
import { createPostgresDriver } from '../src/index.js';
import { EngineWorker } from './ojskit-worker.js';
import { latencySummary, measure, table, watchServer } from './measure.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 20_000);
const RETAINED = Number(process.env['BENCH_RETAINED'] ?? 1_000_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CLAIMS = 200;
const CLAIM_SIZE = 50;
const tag = randomBytes(3).toString('hex');
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
watchServer((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Subject {
  name: string;
  schema: string;
  engine: Engine;
  analyze: () => Promise<void>;
}

async function subject(name: string, retained: number): Promise<Subject> {
  const schema = `ojs_retained_${name}_${tag}`;
  const driver = await createPostgresDriver(DATABASE_URL, { schema, max: 10 });
  const engine = new Engine({ driver, maxBatchSize: 1_000 }).start();
  if (retained > 0) {
    const now = Date.now();
    // Finished no-op jobs as the driver stores them (completed, moved out of `jobs`), spread over the last hour.
    for (let from = 0; from < retained; from += 100_000) {
      await admin.query(
        `INSERT INTO "${schema}".jobs_finished (priority, max_attempts, seq, id, queue, state, attempt, prev_state, type, args, meta,
           created_at, enqueued_at, started_at, completed_at, x_finished_at, x_visibility_ms, x_timeout_ms, doc)
         SELECT 0, 3, i, lpad(i::text, 12, '0') || '-0190-7abc-8def-0123456789ab', 'old', 'completed', 1, 'active', 'bench.noop', '[1]', '{}',
           $2, $2, $2, $2, $3::float8 - (i % 3600000), 30000, 60000, '{}'
         FROM generate_series($1::int + 1, $1::int + $4::int) AS i`,
        [from, new Date(now).toISOString(), now, Math.min(100_000, retained - from)],
      );
    }
    await admin.query(`VACUUM ANALYZE "${schema}".jobs_finished`);
  }
  return { name, schema, engine, analyze: () => driver.analyze() };
}

async function enqueue(s: Subject, queue: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1_000) {
    await s.engine.enqueueBatch({ jobs: Array.from({ length: Math.min(1_000, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
  }
  await s.analyze();
}

async function processRound(s: Subject, queue: string) {
  await enqueue(s, queue, N);
  let started = 0;
  const sample = await measure(async () => {
    const worker = new EngineWorker(s.engine, { queue, concurrency: 50, prefetch: 500, workerId: 'bench', onStart: () => void started++ }).start();
    while (started < N) await sleep(1);
    // Done when none of the queue's jobs is left unfinished (a count in jobs_finished would scan the retained ones).
    for (;;) {
      const { rows } = await admin.query<{ left: boolean }>(`SELECT EXISTS (SELECT 1 FROM "${s.schema}".jobs WHERE queue = $1) AS left`, [queue]);
      if (!rows[0]!.left) break;
      await sleep(1);
    }
    await worker.stop();
  });
  return { jobsPerSecond: N / sample.seconds, postgresUs: sample.postgresCpuUs / N };
}

async function claimRound(s: Subject, queue: string) {
  await enqueue(s, queue, CLAIMS * CLAIM_SIZE);
  const times: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const t0 = performance.now();
    const { jobs } = await s.engine.fetch({ queues: [queue], count: CLAIM_SIZE, worker_id: 'bench' });
    times.push(performance.now() - t0);
    await s.engine.ackMany({ acks: jobs.map((j) => ({ job_id: j.id })) });
  }
  return latencySummary(times);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const empty = await subject('empty', 0);
console.log(`filling ${RETAINED.toLocaleString('en-US')} finished jobs…`);
const full = await subject('full', RETAINED);
const results = new Map<string, Array<{ jobsPerSecond: number; postgresUs: number; p50: number; p99: number }>>([
  [empty.name, []],
  [full.name, []],
]);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [empty, full] : [full, empty];
  for (const s of order) {
    const p = await processRound(s, `p${round}`);
    const c = await claimRound(s, `c${round}`);
    results.get(s.name)!.push({ ...p, p50: c.p50, p99: c.p99 });
    console.log(
      `round ${round + 1} ${s.name}: ${Math.round(p.jobsPerSecond)} jobs/s, PG ${p.postgresUs.toFixed(1)} µs/job, claim of ${CLAIM_SIZE} p50 ${c.p50.toFixed(2)} ms p99 ${c.p99.toFixed(2)} ms`,
    );
  }
}
const row = (name: string) => {
  const r = results.get(name)!;
  return [name, median(r.map((x) => x.jobsPerSecond)), median(r.map((x) => x.postgresUs)), median(r.map((x) => x.p50)), median(r.map((x) => x.p99))];
};
const e = row(empty.name);
const f = row(full.name);
console.log(table(['schema', 'process (jobs/s)', 'PG CPU / job (µs)', 'claim p50 (ms)', 'claim p99 (ms)'], [e, f]));
console.log(
  `retained / empty: processing ${((f[1] as number) / (e[1] as number)).toFixed(3)}×, claim p50 ${((f[3] as number) / (e[3] as number)).toFixed(3)}×, p99 ${((f[4] as number) / (e[4] as number)).toFixed(3)}×`,
);
for (const s of [empty, full]) {
  await s.engine.close();
  await admin.query(`DROP SCHEMA "${s.schema}" CASCADE`);
}
await admin.end();
process.exit(0);
