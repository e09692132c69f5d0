/**
 * The cost of a claim with rate limits on vs off (issue 27 item 1), measured in one run on a Redis of the
 * bench's own (no other client's work in its CPU figures): jobs claimed from a backlog, BATCH per `jobClaim`,
 * in three queues run in interleaved rounds so machine load hits each alike:
 *   off    plain jobs;
 *   job    each job carries `rate_limit: {concurrency: 1e6, key}` (the limit is checked, never reached);
 *   queue  the queue's configuration carries `rate_limit: {concurrency: 1e6}`.
 * Prints, per claimed job: Redis CPU µs (INFO cpu of that Redis), Node CPU µs, and jobs/s (wall), plus the
 * ratio to `off`. With BENCH_CALLGRIND=1 Redis runs under callgrind and the figure is Redis instructions per
 * claimed job instead (load-independent; ~50× slower, so keep BENCH_JOBS small).
 *
 * Usage: pnpm bench:rate-limit  (env: BENCH_JOBS=2000 per mode per round, BENCH_ROUNDS=3, BENCH_PORT=6411, BENCH_CALLGRIND)
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { Engine } from '@ojskit/core';
import { RedisDriver } from '../src/index.js';
import { startCallgrindRedis } from './callgrind.js';

const N = Number(process.env.BENCH_JOBS ?? (process.env.BENCH_CALLGRIND ? 300 : 2_000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 6411);
const BATCH = 10;
const MODES = ['off', 'job', 'queue'] as const;
type Mode = (typeof MODES)[number];

interface Totals {
  jobs: number;
  seconds: number;
  nodeUs: number;
  store: number;
}

const callgrind = process.env.BENCH_CALLGRIND ? await startCallgrindRedis(PORT) : undefined;
const server = callgrind
  ? undefined
  : spawn('redis-server', ['--port', String(PORT), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], { stdio: 'ignore' });
// a failure before the `finally` below must not leave the Redis running
process.on('exit', () => server?.kill());
const url = callgrind?.url ?? `redis://127.0.0.1:${PORT}`;
const probe = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
probe.on('error', () => {});
// the server may still be starting: the probe reconnects until it answers
await probe.ping();
const driver = new RedisDriver({ url, prefix: 'rlbench', checkMemoryPolicy: false });
const engine = new Engine({ driver, maxBatchSize: 1_000 });

async function redisCpuUs(): Promise<number> {
  const info = await probe.info('cpu');
  const value = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (value('used_cpu_sys') + value('used_cpu_user')) * 1e6;
}

async function fill(mode: Mode, round: number): Promise<void> {
  const options: Record<string, unknown> = { queue: mode };
  if (mode === 'job') options.rate_limit = { concurrency: 1_000_000, key: 'bench-key' };
  for (let i = 0; i < N; i += 1_000) {
    const jobs = Array.from({ length: Math.min(1_000, N - i) }, (_, k) => ({ type: 'bench.noop', args: [round, i + k], options }));
    await engine.enqueueBatch({ jobs });
  }
}

/** Claims the whole backlog of `mode` (measured), then ACKs it (not measured). */
async function drain(mode: Mode, totals: Totals): Promise<void> {
  const claimed: Array<{ id: string; attempt: number }> = [];
  const run = async () => {
    for (;;) {
      const now = Date.now();
      const { jobs } = await driver.jobClaim({ queues: [mode], limit: BATCH, workerId: 'bench', now, nowIso: new Date(now).toISOString() });
      if (jobs.length === 0) break;
      for (const job of jobs) claimed.push({ id: job.id, attempt: job.attempt });
    }
  };
  const storeBefore = callgrind ? 0 : await redisCpuUs();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const instructions = callgrind ? await callgrind.count(`claim-${mode}`, run) : (await run(), 0);
  totals.seconds += (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  totals.nodeUs += used.user + used.system;
  totals.store += callgrind ? instructions : (await redisCpuUs()) - storeBefore;
  totals.jobs += claimed.length;
  for (let i = 0; i < claimed.length; i += 500) {
    const now = Date.now();
    await driver.jobCompleteMany({ jobs: claimed.slice(i, i + 500), now, nowIso: new Date(now).toISOString(), returning: 'summary' });
  }
}

try {
  await engine.setQueueConfig('queue', { rate_limit: { concurrency: 1_000_000 } });
  const totals = Object.fromEntries(MODES.map((m) => [m, { jobs: 0, seconds: 0, nodeUs: 0, store: 0 }])) as Record<Mode, Totals>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      await fill(mode, round);
      await drain(mode, totals[mode]);
    }
  }
  const unit = callgrind ? 'Redis instructions' : 'Redis CPU µs';
  const per = (t: Totals) => t.store / t.jobs;
  console.log(`Redis claim cost, rate limits on vs off: ${ROUNDS} rounds × ${N} jobs per mode, ${BATCH} per jobClaim`);
  console.log(`mode   | ${unit} / job | Node CPU µs / job | jobs/s | vs off (store)`);
  for (const mode of MODES) {
    const t = totals[mode];
    const store = callgrind ? Math.round(per(t)).toString() : per(t).toFixed(1);
    console.log(
      `${mode.padEnd(6)} | ${store.padStart(8)} | ${(t.nodeUs / t.jobs).toFixed(1).padStart(8)} | ${Math.round(t.jobs / t.seconds)
        .toString()
        .padStart(6)} | ${(per(t) / per(totals.off)).toFixed(2)}×`,
    );
  }
} finally {
  await driver.close();
  probe.disconnect();
  if (callgrind) await callgrind.stop();
  else server?.kill();
}
