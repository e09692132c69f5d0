/**
 * What per-job history costs (issue 27 item 4: at most 10 % of the processing benchmark): the same SDK system
 * as `pnpm bench` (ojskit-system.ts), twice on one Redis, one driver recording history and one not, taking
 * turns to go first in each round. Per round: N jobs enqueued in bulk, then processed at concurrency 50; the
 * figures are the medians of the rounds, and the ratios on/off per round are printed too.
 *
 * Usage: pnpm bench:history  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_ROUNDS=6, BENCH_WARMUP_RUNS=2)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ojskitSystem } from './ojskit-system.js';
import { measure, table, type Sample } from './measure.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const WARMUP_RUNS = Number(process.env.BENCH_WARMUP_RUNS ?? 2);
const run = randomUUID().slice(0, 8);

const admin = new Redis(url);
const systems = [ojskitSystem(url, `ojshist:on:${run}`, {}, 'history on', true), ojskitSystem(url, `ojshist:off:${run}`, {}, 'history off', false)];
const results: Record<string, { bulk: Sample[]; process: Sample[] }> = {};
for (const s of systems) results[s.name] = { bulk: [], process: [] };

console.log(`ojskit history on vs off on ${url}: ${N} jobs, ${ROUNDS} rounds, run ${run}`);
for (const s of systems) {
  for (let w = 0; w < WARMUP_RUNS; w++) {
    await s.bulk(N, `warm-${w}`);
    await s.process(N, `warm-${w}`);
    await s.clear();
  }
}
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? systems : [...systems].reverse();
  const perSecond: Record<string, number> = {};
  for (const s of order) {
    const queue = `work-${run}-${round}`;
    results[s.name]!.bulk.push(await measure(admin, () => s.bulk(N, queue)));
    const sample = await measure(admin, () => s.process(N, queue));
    results[s.name]!.process.push(sample);
    perSecond[s.name] = N / sample.seconds;
    await s.clear();
  }
  const ratio = perSecond['history on']! / perSecond['history off']!;
  ratios.push(ratio);
  console.log(
    `  round ${round + 1} (${order[0]!.name} first): processed (jobs/s) on ${Math.round(perSecond['history on']!)}, off ${Math.round(perSecond['history off']!)}, on/off ${ratio.toFixed(3)}`,
  );
}
for (const s of systems) await s.close();
await admin.quit();

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const row = (label: string, pick: (s: Sample) => number, key: 'bulk' | 'process') => {
  const on = median(results['history on']![key].map(pick));
  const off = median(results['history off']![key].map(pick));
  return [label, on, off, `${(on / off).toFixed(3)}`];
};
console.log(
  table(
    ['median of rounds', 'history on', 'history off', 'on/off'],
    [
      row('bulk enqueue (jobs/s)', (s) => N / s.seconds, 'bulk'),
      row('processing (jobs/s)', (s) => N / s.seconds, 'process'),
      row('processing: Redis CPU µs/job', (s) => s.redisCpuUs / N, 'process'),
      row('processing: Node CPU µs/job', (s) => s.nodeCpuUs / N, 'process'),
    ],
  ),
);
console.log(`Processing on/off per round: ${ratios.map((r) => r.toFixed(3)).join(', ')} (median ${median(ratios).toFixed(3)})`);
