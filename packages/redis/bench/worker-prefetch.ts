/**
 * Processing only, A/B of the SDK worker's prefetch: ojskit with `prefetch: 0` (one batch of claims at a
 * time, within the concurrency), ojskit with the SDK defaults (a batch prefetched while there is a backlog)
 * and BullMQ, on the same Redis in the same run, taking turns to go first. Prints per system the median of
 * the rounds: jobs/s, Node and Redis CPU per job, and the cores the Node process used (its CPU time over
 * wall time: a worker that waits on round trips uses less of a core).
 *
 * Usage: pnpm bench:prefetch  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_ROUNDS=5, BENCH_PREFETCH=0,default: the
 * variants compared, each `prefetch`, `prefetch/fetchBatchSize` or `prefetch/fetchBatchSize/aN` (N ACK batches
 * in flight), `default` meaning the SDK defaults)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { bullmqSystem } from './bullmq-system.js';
import { measure, table, type Sample } from './measure.js';
import { CONCURRENCY, ojskitSystem } from './ojskit-system.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const run = randomUUID().slice(0, 8);
const admin = new Redis(url);

/** The ojskit variants: `prefetch`, `prefetch/fetchBatchSize` or `prefetch/fetchBatchSize/aN`, `default` for the SDK defaults. */
const VARIANTS = (process.env.BENCH_PREFETCH ?? '0,default').split(',');
const variantOptions = (v: string) => {
  const [prefetch, batch, acks] = v.split('/');
  return {
    prefetch: Number(prefetch),
    ...(batch ? { fetchBatchSize: Number(batch) } : {}),
    ...(acks ? { ackBatch: { maxSize: 100, maxDelayMs: 5, maxInFlight: Number(acks.slice(1)) } } : {}),
  };
};
const systems = [
  ...VARIANTS.map((v, i) =>
    v === 'default'
      ? ojskitSystem(url, `ojsbench:${run}:${i}`, {}, 'ojskit (defaults)')
      : ojskitSystem(url, `ojsbench:${run}:${i}`, variantOptions(v), `ojskit prefetch ${v}`),
  ),
  bullmqSystem(url, `bullbench:${run}`),
];
const samples = new Map<string, Sample[]>(systems.map((s) => [s.name, []]));

console.log(`SDK worker prefetch A/B on ${url}: ${N} queued no-op jobs, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, run ${run}`);
for (const s of systems) {
  await s.bulk(500, 'warm');
  await s.process(500, 'warm');
}
for (let round = 0; round < ROUNDS; round++) {
  const order = systems.map((_, i) => systems[(i + round) % systems.length]!);
  const line: string[] = [];
  for (const s of order) {
    const queue = `work-${run}-${round}`;
    await s.bulk(N, queue);
    const sample = await measure(admin, () => s.process(N, queue));
    samples.get(s.name)!.push(sample);
    await s.clear();
    line.push(`${s.name} ${Math.round(N / sample.seconds).toLocaleString('en-US')}/s`);
  }
  console.log(`  round ${round + 1}: ${line.join(', ')}`);
}
for (const s of systems) await s.close();
await admin.quit();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const bull = median(samples.get('BullMQ')!.map((x) => N / x.seconds));
const rows = systems.map((s) => {
  const xs = samples.get(s.name)!;
  const rate = median(xs.map((x) => N / x.seconds));
  return [
    s.name,
    rate,
    `${(rate / bull).toFixed(2)}×`,
    median(xs.map((x) => x.nodeCpuUs / N)),
    median(xs.map((x) => x.redisCpuUs / N)),
    median(xs.map((x) => x.nodeCpuUs / 1e6 / x.seconds)),
  ];
});
console.log(`\n${table(['system', 'jobs/s', 'vs BullMQ', 'Node CPU µs/job', 'Redis CPU µs/job', 'Node cores'], rows)}\n`);
console.log('Medians of the rounds. Redis CPU includes anything else the server ran meanwhile.');
process.exit(0);
