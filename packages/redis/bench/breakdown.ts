/**
 * Where ojskit's per-job cost goes on Redis (issue 4): processes N already-queued no-op jobs through the SDK
 * (as `pnpm bench` does) and prints Node CPU, Redis CPU and `INFO commandstats` per job (EVALSHA is the
 * scripts' total, the other rows are the commands they ran); then runs the claim and the batched-ACK scripts
 * on their own, 50 jobs per call, and prints each one's cost per job. Node-side detail: run it under
 * `node --cpu-prof --import tsx --conditions=@ojskit/source bench/breakdown.ts`.
 *
 * Usage: pnpm bench:breakdown  (env: REDIS_URL, BENCH_JOBS=20000)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ojskitSystem } from './ojskit-system.js';
import { measure, table, type Sample } from './measure.js';
import { benchAck } from './ack-op.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const BATCH = 50;
const run = randomUUID().slice(0, 8);
const admin = new Redis(url);
const ojskit = ojskitSystem(url, `ojsbreakdown:${run}`);
const driver = ojskit.driver;

type Stats = Map<string, { calls: number; usec: number }>;
async function commandstats(): Promise<Stats> {
  const info = await admin.info('commandstats');
  const out: Stats = new Map();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return out;
}

/** Measures `fn` and the commands Redis ran meanwhile (other clients of a shared server included). */
async function probe(fn: () => Promise<void>): Promise<{ sample: Sample; commands: Array<[string, number, number]> }> {
  const before = await commandstats();
  const sample = await measure(admin, fn);
  const after = await commandstats();
  const commands: Array<[string, number, number]> = [];
  for (const [name, v] of after) {
    const calls = v.calls - (before.get(name)?.calls ?? 0);
    if (calls > 0) commands.push([name, calls, v.usec - (before.get(name)?.usec ?? 0)]);
  }
  return { sample, commands: commands.sort((a, b) => b[2] - a[2]) };
}

const perJob = (us: number) => us / N;

await ojskit.bulk(1_000, 'warm');
await ojskit.process(1_000, 'warm');
await ojskit.bulk(N, `work-${run}`);
const sdk = await probe(() => ojskit.process(N, `work-${run}`));
console.log(
  `\nSDK worker, ${N} no-op jobs at concurrency 50: ${Math.round(N / sdk.sample.seconds).toLocaleString('en-US')} jobs/s, ` +
    `Node ${perJob(sdk.sample.nodeCpuUs).toFixed(1)} µs/job, Redis ${perJob(sdk.sample.redisCpuUs).toFixed(1)} µs/job\n`,
);
console.log(
  table(
    ['command', 'calls', 'µs per call', 'µs per job'],
    sdk.commands.filter(([, , usec]) => perJob(usec) >= 0.05).map(([name, calls, usec]) => [name, calls, usec / calls, perJob(usec)]),
  ),
);

// The two hot scripts on their own.
const queue = `alone-${run}`;
await ojskit.bulk(N, queue);
const claimed: Array<{ id: string; attempt: number }> = [];
const claim = await probe(async () => {
  for (let i = 0; i < N; i += BATCH) {
    const now = Date.now();
    const result = await driver.jobClaim({ queues: [queue], limit: BATCH, workerId: 'breakdown', now, nowIso: new Date(now).toISOString() });
    for (const job of result.jobs) claimed.push({ id: job.id, attempt: job.attempt });
  }
});
const acks = await probe(async () => {
  for (let i = 0; i < claimed.length; i += BATCH) {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    await benchAck(driver, claimed.slice(i, i + BATCH), 'breakdown', now, nowIso);
  }
});
const script = (p: typeof claim) => perJob(p.commands.find(([name]) => name === 'evalsha')?.[2] ?? 0);
console.log(
  `\n${table(
    ['script alone (50 jobs per call)', 'Node µs/job', 'Redis CPU µs/job', 'script time µs/job'],
    [
      ['job-claim', perJob(claim.sample.nodeCpuUs), perJob(claim.sample.redisCpuUs), script(claim)],
      ['job-complete-many (ACK batch)', perJob(acks.sample.nodeCpuUs), perJob(acks.sample.redisCpuUs), script(acks)],
    ],
  )}\n`,
);

await ojskit.close();
await admin.quit();
