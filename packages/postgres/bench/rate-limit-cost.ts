/**
 * The cost of a claim with rate limits on vs off (issue 27 item 1), measured in one run: jobs claimed from a
 * backlog, BATCH per `jobClaim`, in three queues run in interleaved rounds so machine load hits each alike:
 *   off    plain jobs;
 *   job    each job carries `rate_limit: {concurrency: 1e6, key}` (the limit is checked, never reached);
 *   queue  the queue's configuration carries `rate_limit: {concurrency: 1e6}`.
 * The driver runs on one connection, so the database's work is that backend's CPU (/proc/<pid>/stat, same
 * machine): no other client's work is in it. Prints, per claimed job: backend CPU µs, Node CPU µs, jobs/s
 * (wall), and the ratio to `off`. The schema is dropped afterwards.
 *
 * Usage: pnpm bench:rate-limit  (env: DATABASE_URL, BENCH_JOBS=1000 per mode per round, BENCH_ROUNDS=3)
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Engine } from '@ojskit/core';
import pg from 'pg';
import { SESSION_SETTINGS, migrate, PostgresDriver } from '../src/index.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const BATCH = 10;
const MODES = ['off', 'job', 'queue'] as const;
type Mode = (typeof MODES)[number];
const schema = `ojs_rlbench_${randomBytes(3).toString('hex')}`;

interface Totals {
  jobs: number;
  seconds: number;
  nodeUs: number;
  backendUs: number;
}

// one connection: every statement of the driver runs on the backend measured
// as createPostgresDriver connects (generic plans), on one connection
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: SESSION_SETTINGS });
await migrate({ pool, schema });
const driver = new PostgresDriver({ pool, schema, ownsPool: true, events: false });
const engine = new Engine({ driver, maxBatchSize: 1_000 });
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
const [{ pid }] = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
const TICK_US = 1e6 / 100; // USER_HZ

function backendCpuUs(): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

async function fill(mode: Mode, round: number): Promise<void> {
  const options: Record<string, unknown> = { queue: mode };
  if (mode === 'job') options.rate_limit = { concurrency: 1_000_000, key: 'bench-key' };
  for (let i = 0; i < N; i += 1_000) {
    await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(1_000, N - i) }, (_, k) => ({ type: 'bench.noop', args: [round, i + k], options })) });
  }
  await driver.analyze();
}

/** Claims the whole backlog of `mode` (measured), then ACKs it (not measured). */
async function drain(mode: Mode, totals: Totals): Promise<void> {
  const claimed: Array<{ id: string; attempt: number }> = [];
  const backendBefore = backendCpuUs();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (;;) {
    const now = Date.now();
    const { jobs } = await driver.jobClaim({ queues: [mode], limit: BATCH, workerId: 'bench', now, nowIso: new Date(now).toISOString() });
    if (jobs.length === 0) break;
    for (const job of jobs) claimed.push({ id: job.id, attempt: job.attempt });
  }
  totals.seconds += (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  totals.nodeUs += used.user + used.system;
  totals.backendUs += backendCpuUs() - backendBefore;
  totals.jobs += claimed.length;
  for (let i = 0; i < claimed.length; i += 500) {
    const now = Date.now();
    await driver.jobCompleteMany({ jobs: claimed.slice(i, i + 500), now, nowIso: new Date(now).toISOString(), returning: 'summary' });
  }
}

try {
  await engine.setQueueConfig('queue', { rate_limit: { concurrency: 1_000_000 } });
  const totals = Object.fromEntries(MODES.map((m) => [m, { jobs: 0, seconds: 0, nodeUs: 0, backendUs: 0 }])) as Record<Mode, Totals>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      await fill(mode, round);
      await drain(mode, totals[mode]);
    }
  }
  const per = (t: Totals) => t.backendUs / t.jobs;
  console.log(`PostgreSQL claim cost, rate limits on vs off: ${ROUNDS} rounds × ${N} jobs per mode, ${BATCH} per jobClaim`);
  console.log('mode   | backend CPU µs / job | Node CPU µs / job | jobs/s | vs off (backend)');
  for (const mode of MODES) {
    const t = totals[mode];
    console.log(
      `${mode.padEnd(6)} | ${per(t).toFixed(1).padStart(8)} | ${(t.nodeUs / t.jobs).toFixed(1).padStart(8)} | ${Math.round(t.jobs / t.seconds)
        .toString()
        .padStart(6)} | ${(per(t) / per(totals.off)).toFixed(2)}×`,
    );
  }
} finally {
  await driver.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
