/**
 * What per-job history costs (issue 27 item 4: at most 10 % of the processing benchmark): the processing
 * scenario of bench:breakdown (BENCH_MODE=sdk: N queued jobs processed by the SDK Worker as run.ts configures
 * it) on three drivers in one run (each in a schema of its own): one recording history, one recording it but
 * with the measured queues configured `history: false` (spec/history.md H9), and one with the driver's
 * `history: false`, taking turns to go first in each round. Prints each round's jobs/s and ratios to off, and
 * the medians.
 *
 * Usage: pnpm bench:history  (env: DATABASE_URL, BENCH_JOBS=5000, BENCH_ROUNDS=6)
 */
import { randomBytes } from 'node:crypto';
import { Engine } from '@ojskit/core';
import { Worker } from '@ojskit/client';
import pg from 'pg';
import { createPostgresDriver, type PostgresDriver } from '../src/index.js';
import { measure, table, watchServer, type Sample } from './measure.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 5_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 6);
const CONCURRENCY = 50;
const PREFETCH = 500;
const CHUNK = 1_000;
const run = randomBytes(3).toString('hex');
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
watchServer((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Side {
  name: string;
  schema: string;
  driver: PostgresDriver;
  engine: Engine;
  samples: Sample[];
}

/** `queueOptOut`: the driver records history, and each queue it processes is configured `history: false` first. */
async function side(name: string, tag: string, history: boolean, queueOptOut = false): Promise<Side & { queueOptOut: boolean }> {
  const schema = `ojs_history_${tag}_${run}`;
  const driver = await createPostgresDriver(DATABASE_URL, { schema, max: 10, history });
  return { name, schema, driver, engine: new Engine({ driver, maxBatchSize: CHUNK }).start(), samples: [], queueOptOut };
}

async function enqueueInto(s: Side & { queueOptOut: boolean }, queue: string, count: number): Promise<void> {
  if (s.queueOptOut) await s.engine.setQueueConfig(queue, { history: false });
  await enqueue(s, queue, count);
}

async function enqueue(s: Side, queue: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += CHUNK) {
    await s.engine.enqueueBatch({ jobs: Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
  }
  await s.driver.analyze();
}

/** bench:breakdown's sdk runner: until PostgreSQL holds `count` of the queue's jobs as completed. */
async function processAll(s: Side, queue: string, count: number): Promise<void> {
  const worker = new Worker(s.engine, {
    queues: [queue],
    concurrency: CONCURRENCY,
    prefetch: PREFETCH,
    fetchBatchSize: PREFETCH / 2,
    ackBatch: { maxSize: PREFETCH, maxDelayMs: 0, maxInFlight: 2 },
  });
  let started = 0;
  worker.register('bench.noop', async () => void started++);
  worker.start();
  while (started < count) await sleep(1);
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s.schema}".jobs_finished WHERE queue = $1`, [queue]);
    if (rows[0]!.n >= count) break;
    await sleep(1);
  }
  await worker.close();
}

const sides = [await side('history on', 'on', true), await side('queue opted out', 'queue', true, true), await side('history off', 'off', false)];
console.log(`ojskit postgres, history on vs queue opted out vs off: ${N} jobs, ${ROUNDS} rounds, run ${run}`);
for (const s of sides) {
  await enqueueInto(s, 'warm', 1_000);
  await processAll(s, 'warm', 1_000);
}
const ratios: number[] = [];
const queueRatios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // each side goes first in turn, the others after it in order
  const order = [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)];
  const perSecond: Record<string, number> = {};
  for (const s of order) {
    const queue = `work-${round}`;
    await enqueueInto(s, queue, N);
    const sample = await measure(() => processAll(s, queue, N));
    s.samples.push(sample);
    perSecond[s.name] = N / sample.seconds;
  }
  const ratio = perSecond['history on']! / perSecond['history off']!;
  const queueRatio = perSecond['queue opted out']! / perSecond['history off']!;
  ratios.push(ratio);
  queueRatios.push(queueRatio);
  console.log(
    `  round ${round + 1} (${order[0]!.name} first): processed (jobs/s) on ${Math.round(perSecond['history on']!)}, queue opted out ${Math.round(perSecond['queue opted out']!)}, off ${Math.round(perSecond['history off']!)}, on/off ${ratio.toFixed(3)}, queue/off ${queueRatio.toFixed(3)}`,
  );
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const row = (label: string, pick: (s: Sample) => number) => {
  const on = median(sides[0]!.samples.map(pick));
  const queue = median(sides[1]!.samples.map(pick));
  const off = median(sides[2]!.samples.map(pick));
  return [label, on, queue, off, (on / off).toFixed(3), (queue / off).toFixed(3)];
};
console.log(
  table(
    ['median of rounds', 'history on', 'queue opted out', 'history off', 'on/off', 'queue/off'],
    [
      row('processing (jobs/s)', (s) => N / s.seconds),
      row('Node CPU µs/job', (s) => s.nodeCpuUs / N),
      row('Postgres CPU µs/job (whole server)', (s) => s.postgresCpuUs / N),
    ],
  ),
);
console.log(`Processing on/off per round: ${ratios.map((r) => r.toFixed(3)).join(', ')} (median ${median(ratios).toFixed(3)})`);
console.log(`Processing queue/off per round: ${queueRatios.map((r) => r.toFixed(3)).join(', ')} (median ${median(queueRatios).toFixed(3)})`);

for (const s of sides) {
  await s.engine.close();
  await admin.query(`DROP SCHEMA "${s.schema}" CASCADE`);
}
await admin.end();
process.exit(0);
