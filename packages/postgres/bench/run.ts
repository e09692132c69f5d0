/**
 * ojskit on PostgreSQL vs pg-boss and graphile-worker: same database, same run, same workload (issue 5).
 *   1. enqueue N in bulk (batches of 1 000)              4. latency with an idle worker, one job at a time:
 *   2. enqueue N one by one from 50 producers               enqueue→start and enqueue→completed (p50/p95/p99)
 *   3. process N already-queued no-op jobs at concurrency 50, in rounds (order reversed each round)
 * ojskit runs its Engine over PostgresDriver (in process), twice: with the worker loop of ojskit-worker.ts
 * (a local buffer of 500 fed by fetches of 250, two in flight, feeding 50 handlers; completions batched with
 * ackMany, two batches in flight: the same footing as graphile-worker's local queue of 500), and with the
 * SDK's Worker, twice: with its default options (concurrency 50), and set up alike (prefetch 500, fetches of
 * 250, ACK batches of up to 500 with two in flight). pg-boss runs with LISTEN/NOTIFY on, fetching in
 * batches; graphile-worker runs twice, with its defaults and with its documented batching (local queue of
 * 500, completions batched over 25 ms).
 *
 * Every system gets fresh planner statistics (ANALYZE) after its jobs are enqueued and before they are
 * processed: a table whose statistics predate the enqueue makes every claim much slower.
 * "completed" means stored as completed in PostgreSQL: an observer polls each job's row (latency), or, once
 * every handler of the processing scenario ran, the system's table until all are stored as done.
 *
 * Usage: pnpm bench  (env: DATABASE_URL, BENCH_JOBS=20000, BENCH_LATENCY_SAMPLES=300, BENCH_ROUNDS=2, BENCH_ONLY=ojskit,…,
 *   BENCH_SDK_OPTIONS, BENCH_SDK_TUNED=0 to leave out the tuned SDK Worker)
 */
import { randomBytes } from 'node:crypto';
import { Engine } from '@ojskit/core';
import { Worker } from '@ojskit/client';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { Logger, makeWorkerUtils, run as runGraphile, type Runner, type WorkerUtils } from 'graphile-worker';
import { createPostgresDriver } from '../src/index.js';
import { EngineWorker } from './ojskit-worker.js';
import { latencySummary, measure, table, watchServer, type Sample } from './measure.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 20_000);
const LATENCY_SAMPLES = Number(process.env['BENCH_LATENCY_SAMPLES'] ?? 300);
const ONLY = process.env['BENCH_ONLY']?.split(',');
/** Processing rounds (the systems' order reversed every other round). */
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const CONCURRENCY = 50;
const PRODUCERS = 50;
const CHUNK = 1_000;
/** Jobs a worker claims ahead of its handlers: ojskit's fetch count, graphile-worker's local queue. */
const PREFETCH = 500;
const tag = randomBytes(3).toString('hex');
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
watchServer((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the system ran `target` handlers (an in-process counter: free), then polls `sql` (one row with
 * `n`) until PostgreSQL holds them as done. Polling the tables all along would bill every system for a count
 * over its growing table, a cost that differs between systems (graphile-worker deletes its done jobs) and has
 * nothing to do with processing them.
 */
async function until(started: () => number, sql: string, params: unknown[], target: number): Promise<void> {
  while (started() < target) await sleep(1);
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(sql, params);
    if (Number(rows[0]?.n ?? 0) >= target) return;
    await sleep(1);
  }
}

/** Polls one job's row until `isDone` says it is completed. */
async function completion(sql: string, id: string): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ done: boolean }>(sql, [id]);
    if (rows[0]?.done) return;
    await sleep(1);
  }
}

/**
 * Enqueue→start and enqueue→completed samples for one system: its handler calls `started()`, `sample` enqueues
 * one job at a time (through `enqueue`, which returns the job's id) and waits for its row to read as done.
 */
class LatencyProbe {
  private t0 = 0;
  readonly start: number[] = [];
  readonly done: number[] = [];

  started(): void {
    this.start.push(performance.now() - this.t0);
  }

  async sample(samples: number, doneSql: string, enqueue: (i: number) => Promise<string>): Promise<{ start: number[]; done: number[] }> {
    for (let i = 0; i < samples; i++) {
      this.t0 = performance.now();
      await completion(doneSql, await enqueue(i));
      this.done.push(performance.now() - this.t0);
      await sleep(5);
    }
    return { start: this.start, done: this.done };
  }
}

interface System {
  name: string;
  /** Rows of the enqueue scenarios (a second mode of a system shares them). */
  enqueues: boolean;
  bulk(count: number, queue: string): Promise<void>;
  oneByOne(count: number, queue: string): Promise<void>;
  /** Refreshes planner statistics of the system's tables. */
  analyze(): Promise<void>;
  /** Deletes the jobs of `queues` (the enqueue scenarios' rows), then vacuums and analyzes the system's tables. */
  drop(queues: string[]): Promise<void>;
  /** Processes `count` queued jobs; resolves when PostgreSQL holds them all as completed. */
  process(count: number, queue: string): Promise<void>;
  latency(samples: number, queue: string): Promise<{ start: number[]; done: number[] }>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- ojskit

let ojskitBase: { engine: Engine; schema: string } | undefined;

async function ojskit(): Promise<System> {
  const schema = `ojs_bench_${tag}`;
  const driver = await createPostgresDriver(DATABASE_URL, {
    schema,
    max: 10,
    events: process.env['BENCH_EVENTS'] !== '0',
    onError: (e) => console.error(e.message),
  });
  const engine = new Engine({ driver, maxBatchSize: CHUNK }).start();
  ojskitBase = { engine, schema };
  const doneSql = `SELECT EXISTS (SELECT 1 FROM "${schema}".jobs_finished WHERE id = $1 AND state = 'completed') AS done`;
  return {
    name: 'ojskit',
    enqueues: true,
    async bulk(count, queue) {
      for (let i = 0; i < count; i += CHUNK) {
        await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
      }
    },
    async oneByOne(count, queue) {
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await engine.enqueue({ type: 'bench.noop', queue, args: [next++] });
        }),
      );
    },
    analyze: () => driver.analyze(),
    async drop(queues) {
      await admin.query(`DELETE FROM "${schema}".jobs WHERE queue = ANY($1)`, [queues]);
      await admin.query(`DELETE FROM "${schema}".jobs_finished WHERE queue = ANY($1)`, [queues]);
      await admin.query(`VACUUM ANALYZE "${schema}".jobs, "${schema}".jobs_finished`);
    },
    async process(count, queue) {
      let started = 0;
      const worker = new EngineWorker(engine, {
        queue,
        concurrency: CONCURRENCY,
        prefetch: PREFETCH,
        workerId: 'bench',
        onStart: () => void started++,
      }).start();
      await until(() => started, `SELECT count(*)::int AS n FROM "${schema}".jobs_finished WHERE queue = $1 AND state = 'completed'`, [queue], count);
      await worker.stop();
    },
    async latency(samples, queue) {
      const probe = new LatencyProbe();
      const worker = new EngineWorker(engine, {
        queue,
        concurrency: CONCURRENCY,
        prefetch: PREFETCH,
        workerId: 'bench',
        onStart: () => probe.started(),
      }).start();
      await sleep(300);
      const samplesTaken = await probe.sample(samples, doneSql, async (i) => (await engine.enqueue({ type: 'bench.noop', queue, args: [i] })).job.id);
      await worker.stop();
      return samplesTaken;
    },
    async close() {
      await engine.close();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    },
  };
}

/**
 * ojskit through its SDK Worker (`@ojskit/client`), on the same engine and schema, twice: with its default
 * options (only the concurrency set: what a user runs, and what issue 26's targets are about), and set up on
 * graphile-worker's batched footing (a local buffer of PREFETCH jobs beyond the handlers, claimed in fetches of
 * half that, ACK batches of up to PREFETCH with two in flight). BENCH_SDK_OPTIONS (JSON) overrides any option of
 * the tuned one for A/B runs.
 */
async function ojskitSdk(base: { engine: Engine; schema: string }, tuned: boolean): Promise<System> {
  const { engine, schema } = base;
  const doneSql = `SELECT EXISTS (SELECT 1 FROM "${schema}".jobs_finished WHERE id = $1 AND state = 'completed') AS done`;
  const options = tuned
    ? {
        concurrency: CONCURRENCY,
        prefetch: PREFETCH,
        fetchBatchSize: PREFETCH / 2,
        ackBatch: { maxSize: PREFETCH, maxDelayMs: 0, maxInFlight: 2 },
        ...(JSON.parse(process.env['BENCH_SDK_OPTIONS'] ?? '{}') as object),
      }
    : { concurrency: CONCURRENCY };
  const unsupported = () => Promise.reject(new Error('enqueue rows come from the ojskit system'));
  return {
    name: tuned ? 'ojskit (SDK Worker, batched)' : 'ojskit (SDK Worker)',
    enqueues: false,
    bulk: async (count, queue) => {
      for (let i = 0; i < count; i += CHUNK) {
        await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
      }
    },
    oneByOne: unsupported,
    analyze: async () => void (await admin.query(`ANALYZE "${schema}".jobs`)),
    drop: async () => {},
    async process(count, queue) {
      const worker = new Worker(engine, { queues: [queue], ...options });
      let started = 0;
      worker.register('bench.noop', async () => void started++);
      worker.start();
      await until(() => started, `SELECT count(*)::int AS n FROM "${schema}".jobs_finished WHERE queue = $1 AND state = 'completed'`, [queue], count);
      await worker.close();
    },
    async latency(samples, queue) {
      const probe = new LatencyProbe();
      const worker = new Worker(engine, { queues: [queue], ...options });
      worker.register('bench.noop', async () => probe.started());
      worker.start();
      await sleep(300);
      const samplesTaken = await probe.sample(samples, doneSql, async (i) => (await engine.enqueue({ type: 'bench.noop', queue, args: [i] })).job.id);
      await worker.close();
      return samplesTaken;
    },
    close: async () => {},
  };
}

// ---------------------------------------------------------------- pg-boss

async function pgBoss(): Promise<System> {
  const schema = `pgboss_bench_${tag}`;
  const boss = new PgBoss({ connectionString: DATABASE_URL, schema, max: 10, useListenNotify: true });
  boss.on('error', (e) => console.error('pg-boss', e));
  await boss.start();
  const queues = new Set<string>();
  const ensure = async (queue: string) => {
    if (queues.has(queue)) return;
    await boss.createQueue(queue, { notify: true });
    queues.add(queue);
  };
  const doneSql = `SELECT state = 'completed' AS done FROM "${schema}".job WHERE id = $1`;
  return {
    name: 'pg-boss',
    enqueues: true,
    async bulk(count, queue) {
      await ensure(queue);
      for (let i = 0; i < count; i += CHUNK) {
        await boss.insert(
          queue,
          Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ data: { n: i + k } })),
        );
      }
    },
    async oneByOne(count, queue) {
      await ensure(queue);
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await boss.send(queue, { n: next++ });
        }),
      );
    },
    analyze: async () => void (await admin.query(`ANALYZE "${schema}".job`)),
    async drop(queues) {
      await admin.query(`DELETE FROM "${schema}".job WHERE name = ANY($1)`, [queues]);
      await admin.query(`VACUUM ANALYZE "${schema}".job`);
    },
    async process(count, queue) {
      await ensure(queue);
      // 50 jobs in flight: 5 local workers fetching 10 each, fetching again at once while batches come back full.
      let started = 0;
      const id = await boss.work(queue, { batchSize: 10, localConcurrency: 5, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true }, async (jobs) => {
        started += jobs.length;
      });
      await until(() => started, `SELECT count(*)::int AS n FROM "${schema}".job WHERE name = $1 AND state = 'completed'`, [queue], count);
      await boss.offWork(queue, { id });
    },
    async latency(samples, queue) {
      await ensure(queue);
      const probe = new LatencyProbe();
      const id = await boss.work(queue, { batchSize: 10, localConcurrency: 5, pollingIntervalSeconds: 0.5 }, async (jobs) => {
        for (const _ of jobs) probe.started();
      });
      await sleep(1_000);
      const samplesTaken = await probe.sample(samples, doneSql, async (i) => (await boss.send(queue, { n: i }))!);
      await boss.offWork(queue, { id });
      return samplesTaken;
    },
    async close() {
      await boss.stop({ graceful: false });
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    },
  };
}

// ---------------------------------------------------------------- graphile-worker

async function graphile(batched: boolean, utils?: WorkerUtils): Promise<System> {
  const schema = `gw_bench_${tag}`;
  const ownUtils = utils === undefined;
  const u = utils ?? (await makeWorkerUtils({ connectionString: DATABASE_URL, schema }));
  if (ownUtils) await u.migrate();
  // Worker's documented batching: a local queue of locked jobs, completions batched over 25 ms.
  const preset = batched ? { worker: { localQueue: { size: PREFETCH }, completeJobBatchDelay: 25, failJobBatchDelay: 25 } } : undefined;
  const doneSql = `SELECT NOT EXISTS (SELECT 1 FROM "${schema}"._private_jobs WHERE id = $1) AS done`;
  const start = async (taskIdentifier: string, task: () => Promise<void>): Promise<Runner> =>
    runGraphile({
      connectionString: DATABASE_URL,
      schema,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      pollInterval: 2_000,
      logger: makeQuietLogger(),
      taskList: { [taskIdentifier]: task },
      ...(preset ? { preset } : {}),
    });
  return {
    name: batched ? 'graphile-worker (batched)' : 'graphile-worker',
    enqueues: !batched,
    async bulk(count, queue) {
      for (let i = 0; i < count; i += CHUNK) {
        await u.addJobs(Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ identifier: queue, payload: { n: i + k } })));
      }
    },
    async oneByOne(count, queue) {
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await u.addJob(queue, { n: next++ });
        }),
      );
    },
    analyze: async () => void (await admin.query(`ANALYZE "${schema}"._private_jobs`)),
    async drop(queues) {
      if (!ownUtils) return; // the defaults' system owns the rows
      await admin.query(`DELETE FROM "${schema}"._private_jobs WHERE task_id IN (SELECT id FROM "${schema}"._private_tasks WHERE identifier = ANY($1))`, [
        queues,
      ]);
      await admin.query(`VACUUM ANALYZE "${schema}"._private_jobs`);
    },
    async process(count, queue) {
      // graphile-worker deletes a job when it completes: done when none of this task's jobs remain.
      let started = 0;
      const runner = await start(queue, async () => void started++);
      while (started < count) await sleep(1);
      for (;;) {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}"._private_jobs j JOIN "${schema}"._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1`,
          [queue],
        );
        if (rows[0]!.n === 0) break;
        await sleep(1);
      }
      await runner.stop();
    },
    async latency(samples, queue) {
      const probe = new LatencyProbe();
      const runner = await start(queue, async () => probe.started());
      await sleep(1_000);
      const samplesTaken = await probe.sample(samples, doneSql, async (i) => String((await u.addJob(queue, { n: i })).id));
      await runner.stop();
      return samplesTaken;
    },
    async close() {
      if (!ownUtils) return;
      await u.release();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    },
  };
}

/** graphile-worker logs every job at info level; keep warnings and errors only. */
function makeQuietLogger(): Logger {
  return new Logger(() => (level: string, message: string) => {
    if (level === 'error' || level === 'warning') console.error(`graphile-worker ${level}: ${message}`);
  });
}

// ---------------------------------------------------------------- the run

const systems: System[] = [];
const include = (name: string) => !ONLY || ONLY.some((o) => name.toLowerCase().startsWith(o.toLowerCase()));
if (include('ojskit')) {
  systems.push(await ojskit());
  systems.push(await ojskitSdk(ojskitBase!, false));
  if (process.env['BENCH_SDK_TUNED'] !== '0') systems.push(await ojskitSdk(ojskitBase!, true));
}
if (include('pg-boss')) systems.push(await pgBoss());
if (include('graphile')) {
  const plain = await graphile(false);
  systems.push(plain);
  const utils = await makeWorkerUtils({ connectionString: DATABASE_URL, schema: `gw_bench_${tag}` });
  const batched = await graphile(true, utils);
  systems.push({ ...batched, close: async () => void (await utils.release()) });
}

const results: Record<string, Record<string, Sample>> = {};
const latencies: Record<string, { start: number[]; done: number[] }> = {};
const record = (system: string, scenario: string, sample: Sample) => ((results[system] ??= {})[scenario] = sample);

console.log(`ojskit vs pg-boss vs graphile-worker on ${DATABASE_URL}: ${N} jobs, concurrency ${CONCURRENCY}, ${PRODUCERS} producers, run ${tag}`);
console.log(`node ${process.version}; ${(await admin.query('SELECT version()')).rows[0].version}`);
for (const s of systems) {
  // Warm-up (module loading, JIT, prepared statements) so nobody pays it inside a measurement.
  await s.bulk(500, `warm-${tag}`);
  await s.analyze();
  await s.process(500, `warm-${tag}`);
}
for (const s of systems) {
  if (s.enqueues) {
    record(s.name, 'bulk', await measure(() => s.bulk(N, `bulk-${tag}`)));
    record(s.name, 'oneByOne', await measure(() => s.oneByOne(N, `single-${tag}`)));
    // The enqueue scenarios' 2N jobs are never processed: left queued, they would sit in front of every later
    // claim of a system whose claim index does not lead with the queue (graphile-worker's defaults then ran at
    // ~150-300 jobs/s, stepping over them on every fetch). Each system starts the latency and processing
    // scenarios without them.
    await s.drop([`bulk-${tag}`, `single-${tag}`]);
  }
  latencies[s.name] = await s.latency(LATENCY_SAMPLES, `lat-${tag}-${s.name.length}`);
}
// Processing in rounds, the order of the systems reversed every other round: whoever runs first meets a fresher
// database and the others' idle background work, so each system takes a turn early and late. Each system's
// figure is its median round (of an even count, the slower middle one).
const processing: Record<string, Sample[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 === 0 ? systems : [...systems].reverse()) {
    const queue = `work-${tag}-${round}-${s.name.length}`;
    await s.bulk(N, queue);
    await s.analyze();
    const sample = await measure(() => s.process(N, queue));
    (processing[s.name] ??= []).push(sample);
    console.log(`  round ${round + 1}: ${s.name} processed ${Math.round(N / sample.seconds).toLocaleString('en-US')} jobs/s`);
  }
}
for (const s of systems) {
  const byRate = [...processing[s.name]!].sort((a, b) => b.seconds - a.seconds);
  record(s.name, 'process', byRate[Math.floor((byRate.length - 1) / 2)]!);
}
for (const s of [...systems].reverse()) await s.close();
await admin.end();

// ---------------------------------------------------------------- report

const names = systems.map((s) => s.name);
const rate = (s: Sample | undefined) => (s ? N / s.seconds : NaN);
const rows: Array<Array<string | number>> = [];
const scenarios: Array<[string, string]> = [
  ['bulk', 'enqueue bulk (jobs/s)'],
  ['oneByOne', 'enqueue 1-by-1, 50 producers (jobs/s)'],
  ['process', 'process, concurrency 50 (jobs/s)'],
];
for (const [key, label] of scenarios) {
  rows.push([label, ...names.map((n) => rate(results[n]?.[key]))]);
  rows.push(['  Node CPU per job (µs)', ...names.map((n) => (results[n]?.[key] ? results[n]![key]!.nodeCpuUs / N : NaN))]);
  rows.push(['  Postgres CPU per job (µs)', ...names.map((n) => (results[n]?.[key] ? results[n]![key]!.postgresCpuUs / N : NaN))]);
}
for (const kind of ['start', 'done'] as const) {
  for (const p of ['p50', 'p95', 'p99'] as const) {
    rows.push([`${kind === 'start' ? 'enqueue→start' : 'enqueue→completed'} ${p} (ms)`, ...names.map((n) => latencySummary(latencies[n]![kind])[p])]);
  }
}
console.log(`\n${table(['scenario', ...names], rows)}\n`);

const ours = names.filter((n) => n.startsWith('ojskit'));
if (ours.length > 0) {
  const ratios: Array<Array<string | number>> = [];
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? `${(a / b).toFixed(2)}×` : '—');
  for (const other of names.filter((n) => !n.startsWith('ojskit'))) {
    for (const [key, label] of scenarios) {
      const row = ours.map((o) => ratio(rate(results[o]?.[key]), rate(results[other]?.[key])));
      if (row.some((r) => r !== '—')) ratios.push([`${label} vs ${other}`, ...row]);
    }
    for (const kind of ['start', 'done'] as const) {
      const theirs = latencySummary(latencies[other]![kind]).p99;
      ratios.push([
        `p99 ${kind === 'start' ? 'enqueue→start' : 'enqueue→completed'} vs ${other} (theirs/ours)`,
        ...ours.map((o) => ratio(theirs, latencySummary(latencies[o]![kind]).p99)),
      ]);
    }
  }
  console.log(table(['ratio', ...ours], ratios));
  console.log('\nThroughput ratios are ojskit/other (above 1: ojskit is faster); latency ratios other/ojskit (above 1: ojskit is faster).');
  console.log('Postgres CPU counts the processes of the server under test (every postgres process when it is not on this machine),');
  console.log('so it includes anything else that server did meanwhile.');
}
process.exit(0);
