/**
 * PostgreSQL's cost per processed job, without the worker loop's concurrency: FETCHes of BENCH_FETCH jobs, each
 * acknowledged at once with one ackMany, one after the other on one connection. Prints the server's CPU,
 * WAL bytes and the time spent in the claim and in the ACK, per job (and the CPU and WAL of enqueueing them).
 *
 * Usage: pnpm bench:sql-cost  (env: DATABASE_URL, BENCH_JOBS=20000,
 *        BENCH_FETCH=250, BENCH_EVENTS=0 to run without NOTIFY,
 *        BENCH_LSN=1 to print the WAL range, for pg_waldump --stats=record,
 *        BENCH_HISTORY=on|queue|off: history recorded (default), recorded by the driver with the measured
 *        queues configured `history: false`, or the driver's `history: false`)
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Engine } from '@ojskit/core';
import pg from 'pg';
import { createPostgresDriver } from '../src/index.js';
import { measure, watchServer } from './measure.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env['BENCH_JOBS'] ?? 20_000);
const FETCH = Number(process.env['BENCH_FETCH'] ?? 250);
const schema = `ojs_sqlcost_${randomBytes(3).toString('hex')}`;
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
watchServer((await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);

const driver = await createPostgresDriver(`${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}application_name=${schema}`, {
  schema,
  max: 1,
  events: process.env['BENCH_EVENTS'] !== '0',
  history: process.env['BENCH_HISTORY'] !== 'off',
});
const engine = new Engine({ driver, maxBatchSize: 1_000 }).start();

async function enqueue(queue: string, count: number): Promise<void> {
  if (process.env['BENCH_HISTORY'] === 'queue') await engine.setQueueConfig(queue, { history: false });
  for (let i = 0; i < count; i += 1_000) {
    await engine.enqueueBatch({ jobs: Array.from({ length: Math.min(1_000, count - i) }, (_, k) => ({ type: 'bench.noop', queue, args: [i + k] })) });
  }
  await driver.analyze();
}

let fetchMs = 0;
let ackMs = 0;
// The backends' CPU (ns) spent in the claims and in the ACKs, once `cpuPids` is set (the driver's one pooled
// connection: the engine's own services share it, so their statements count where they fall).
let cpuPids: number[] = [];
let fetchCpuNs = 0;
let ackCpuNs = 0;
const cpuNow = (): number => cpuPids.reduce((sum, pid) => sum + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]), 0);
async function processAll(queue: string): Promise<number> {
  let done = 0;
  for (;;) {
    const c0 = cpuNow();
    const t0 = performance.now();
    const { jobs } = await engine.fetch({ queues: [queue], count: FETCH, worker_id: 'bench' });
    const t1 = performance.now();
    const c1 = cpuNow();
    if (jobs.length === 0) return done;
    const { results } = await engine.ackMany({ acks: jobs.map((j) => ({ job_id: j.id, worker_id: 'bench' })) });
    fetchMs += t1 - t0;
    ackMs += performance.now() - t1;
    fetchCpuNs += c1 - c0;
    ackCpuNs += cpuNow() - c1;
    for (const r of results) if (!r.ok) throw new Error(`ack refused: ${JSON.stringify(r)}`);
    done += jobs.length;
  }
}

const lsn = async () => (await admin.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0]!.l;
const walBytes = async (from: string, to: string) =>
  Number((await admin.query<{ d: string }>('SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text AS d', [from, to])).rows[0]!.d);

await enqueue('warm', 1_000);
await processAll('warm');
fetchMs = ackMs = 0;
// The driver's one backend: its own CPU (schedstat, ns) is not blurred by other clients of the server.
// (Backends that start during the run count whole; ones that exit during it are lost.)
const backends = async () =>
  (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [schema])).rows.map((r) => r.pid);
const onCpuNs = (pids: number[]) => {
  const at = new Map<number, number>();
  for (const pid of pids) at.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
  return at;
};
const enqueueCpu = onCpuNs(await backends());
const enqueueLsn = await lsn();
await enqueue('work', N);
let enqueueUs = 0;
cpuPids = await backends();
const cpuBefore = onCpuNs(await backends());
for (const [pid, ns] of cpuBefore) enqueueUs += (ns - (enqueueCpu.get(pid) ?? 0)) / 1000;
const before = await lsn();
const enqueueWal = await walBytes(enqueueLsn, before);
let processed = 0;
const sample = await measure(async () => void (processed = await processAll('work')));
const after = await lsn();
let backendUs = 0;
for (const [pid, ns] of onCpuNs(await backends())) backendUs += (ns - (cpuBefore.get(pid) ?? 0)) / 1000;
const wal = await walBytes(before, after);
if (process.env['BENCH_LSN']) console.log(`wal ${before} ${after}`);
if (processed !== N) throw new Error(`processed ${processed} of ${N}`);
console.log(`enqueue: backend ${(enqueueUs / N).toFixed(1)} µs/job, WAL ${(enqueueWal / N).toFixed(0)} B/job`);
console.log(
  `sql-cost: ${N} jobs, fetch ${FETCH}, history ${process.env['BENCH_HISTORY'] ?? 'on'}: backend ${(backendUs / N).toFixed(1)} µs/job, Postgres ${(sample.postgresCpuUs / N).toFixed(1)} µs/job, WAL ${(wal / N).toFixed(0)} B/job, ` +
    `claim ${((fetchMs * 1000) / N).toFixed(1)} µs/job, ack ${((ackMs * 1000) / N).toFixed(1)} µs/job (wall); backend in claims ${(fetchCpuNs / 1000 / N).toFixed(1)} µs/job, in ACKs ${(ackCpuNs / 1000 / N).toFixed(1)} µs/job`,
);
await engine.close();
await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
await admin.end();
process.exit(0);
