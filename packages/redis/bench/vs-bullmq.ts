/**
 * ojskit on Redis vs BullMQ: same Redis, same run, same workload (issue 4).
 *   1. enqueue N in bulk (chunks of 1 000)          4. latency with an idle worker: enqueue→start and
 *   2. enqueue N one by one from 50 producers           enqueue→completed (p50/p95/p99), one job at a time,
 *   3. process N already-queued no-op jobs at           the worker idle 1–10 ms before each (the same
 *      concurrency 50                                   seeded gaps for both systems); and back to back,
 *                                                       each job enqueued as the previous one completes
 * ojskit runs through its SDK (`@ojskit/client` Client and Worker, in-process Engine over RedisDriver):
 * batched claims (fetches sized to free slots plus one prefetched batch, two in flight while there is a backlog) and batched
 * acks. BullMQ 6 runs its Queue and Worker.
 *
 * The scenarios run in rounds, the two systems taking turns to go first; each figure is the median of the
 * rounds, so a burst of load from other processes on a shared machine moves one round of one system, not the
 * result. Within a round both systems enqueue first, then both process, back to back. Latency percentiles are over every round's samples, taken with both idle workers up and the systems
 * alternating every LATENCY_BLOCK samples (latencyRound).
 *
 * Why the idle gaps: back to back, a worker is caught just after its previous job, still busy with it (its
 * ACK, its next fetch), which is not the idle worker the latency target speaks of; and with the next job due
 * at the previous one's completion, the loop can lock onto a system's periodic work. A p99 is the 1 % slowest
 * samples; on a 2-core machine those are the host's stalls of a few ms (a plain PING loop has them too), so
 * the samples are many (BENCH_LATENCY_SAMPLES per round and mode).
 *
 * Usage: pnpm bench  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_LATENCY_SAMPLES=1000, BENCH_LATENCY_WARMUP=3000,
 *   BENCH_WARMUP_RUNS=3, BENCH_ROUNDS=3,
 *   BENCH_WORKER_OPTIONS: JSON of SDK Worker options for ojskit, e.g. '{"prefetch":500,"fetchBatchSize":250}')
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { WorkerOptions } from '@ojskit/client';
import { bullmqSystem } from './bullmq-system.js';
import { CONCURRENCY, PRODUCERS, ojskitSystem } from './ojskit-system.js';
import { idleGaps, latencySummary, measure, table, type Sample } from './measure.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Warm-up runs of the throughput path (bulk enqueue and processing of N jobs) per system before the rounds. */
const WARMUP_RUNS = Number(process.env.BENCH_WARMUP_RUNS ?? 3);
/** Latency samples each system takes back to back before the rounds (a tenth as many more with idle gaps). */
const LATENCY_WARMUP = Number(process.env.BENCH_LATENCY_WARMUP ?? 3000);
/** Latency samples one system takes before the other takes its turn. */
const LATENCY_BLOCK = 50;
const run = randomUUID().slice(0, 8);

const admin = new Redis(url);

// ---------------------------------------------------------------- the run

const workerOptions = JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? '{}') as WorkerOptions;
const systems = [ojskitSystem(url, `ojsbench:${run}`, workerOptions), bullmqSystem(url, `bullbench:${run}`)];
const results: Record<string, Record<string, Sample[]>> = {};
/** Latency modes: the worker idle 1–10 ms before each job, or the next job enqueued as one completes. */
const MODES = [
  { key: 'idle', label: 'idle worker', gaps: (round: number) => idleGaps(LATENCY_SAMPLES, 1, 10, round + 1) },
  { key: 'loop', label: 'back to back', gaps: () => Array<number>(LATENCY_SAMPLES).fill(0) },
] as const;
const latencies: Record<string, Record<string, { start: number[]; done: number[] }>> = {};
const record = (system: string, scenario: string, sample: Sample) => ((results[system] ??= {})[scenario] ??= []).push(sample);

console.log(
  `ojskit vs BullMQ on ${url}: ${N} jobs, concurrency ${CONCURRENCY}, ${PRODUCERS} producers, ${ROUNDS} rounds, run ${run}` +
    (Object.keys(workerOptions).length > 0 ? `, ojskit worker options ${JSON.stringify(workerOptions)}` : ''),
);
// Warm-up (script loading, JIT, heap sizing) so neither side pays it inside a measurement. The latency path is code of its
// own (a long-poll, one-job claims and ACKs), called once per sample: without its own warm-up, V8 is still
// compiling it on a helper thread through the first rounds, and on a 2-core machine that thread takes the
// core Redis needs (a probe of 3 000 back-to-back samples after none, 2 200 and 6 200 warm-up samples: ojskit
// 94–107, 47–48 and 29–40 samples over 1.5 ms, BullMQ 78–98, 20–22 and 13–17).
for (const s of systems) {
  // Until the throughput path runs at its steady speed: per 20 000-job run, ojskit's Node CPU per job went
  // 18 → 13 → 11 µs before levelling at 9–12, BullMQ's 46 → 36 → 33 at 33–36 (bench probe, 2026-11-26).
  for (let w = 0; w < WARMUP_RUNS; w++) {
    await s.bulk(N, `warm-${w}`);
    await s.process(N, `warm-${w}`);
    await s.clear();
  }
  const probe = await s.latencyProbe('warm-latency');
  await probe.run(Array<number>(LATENCY_WARMUP).fill(0));
  await probe.run(idleGaps(LATENCY_WARMUP / 10, 1, 10, 0));
  await probe.close();
}
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? systems : [...systems].reverse();
  const tag = `${run}-${round}`;
  for (const s of order) {
    record(s.name, 'bulk', await measure(admin, () => s.bulk(N, `bulk-${tag}`)));
    record(s.name, 'oneByOne', await measure(admin, () => s.oneByOne(N, `single-${tag}`)));
    // Each scenario starts from an empty store: the 40 000 jobs the enqueue scenarios left would otherwise
    // sit in Redis while the other queue is processed (a larger keyspace: ojskit's Redis CPU per processed
    // job ~15 % higher), which is no part of that workload.
    await s.clear();
  }
  // The two systems' processing runs follow each other (only the other's queue filling between them), so a
  // round's ratio compares them on the same state of the host; the enqueue scenarios used to sit between them.
  const line: string[] = [];
  for (const s of order) {
    await s.bulk(N, `work-${tag}`);
    record(s.name, 'process', await measure(admin, () => s.process(N, `work-${tag}`)));
    await s.clear();
    line.push(`${s.name} ${Math.round(N / results[s.name]!.process!.at(-1)!.seconds).toLocaleString('en-US')}`);
  }
  console.log(`  round ${round + 1}: processed (jobs/s) ${line.join(', ')}`);
  await latencyRound(round);
}
for (const s of systems) await s.close();
await admin.quit();

/**
 * One round's latency samples: both systems' idle workers up at once, the samples taken in blocks of
 * LATENCY_BLOCK, the systems alternating block by block (who goes first alternating too), so a slow spell of
 * the machine falls on both alike instead of on whichever system's turn it was.
 */
async function latencyRound(round: number): Promise<void> {
  for (const mode of MODES) {
    const gaps = mode.gaps(round);
    const probes = await Promise.all(systems.map((s) => s.latencyProbe(`lat-${mode.key}-${run}-${round}`)));
    for (let b = 0, block = 0; b < gaps.length; b += LATENCY_BLOCK, block++) {
      const order = (round + block) % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const lat = await probes[k]!.run(gaps.slice(b, b + LATENCY_BLOCK));
        const all = ((latencies[systems[k]!.name] ??= {})[mode.key] ??= { start: [], done: [] });
        all.start.push(...lat.start);
        all.done.push(...lat.done);
      }
    }
    for (const probe of probes) await probe.close();
  }
  for (const s of systems) await s.clear();
}

// ---------------------------------------------------------------- report

const [ours, theirs] = ['ojskit', 'BullMQ'] as const;
const rate = (s: Sample) => N / s.seconds;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
/** Per scenario: the median of the rounds' throughput and CPU per job. */
const summary = (samples: Sample[]) => ({
  rate: median(samples.map(rate)),
  nodeCpuUs: median(samples.map((x) => x.nodeCpuUs / N)),
  redisCpuUs: median(samples.map((x) => x.redisCpuUs / N)),
});
const rows: Array<Array<string | number>> = [];
const scenarios: Array<[string, string]> = [
  ['bulk', 'enqueue bulk (jobs/s)'],
  ['oneByOne', 'enqueue 1-by-1, 50 producers (jobs/s)'],
  ['process', 'process, concurrency 50 (jobs/s)'],
];
for (const [key, label] of scenarios) {
  const a = summary(results[ours]![key]!);
  const b = summary(results[theirs]![key]!);
  rows.push([label, a.rate, b.rate, `${(a.rate / b.rate).toFixed(2)}×`]);
  rows.push([`  Node CPU per job (µs)`, a.nodeCpuUs, b.nodeCpuUs, `${(a.nodeCpuUs / b.nodeCpuUs).toFixed(2)}×`]);
  rows.push([`  Redis CPU per job (µs)`, a.redisCpuUs, b.redisCpuUs, `${(a.redisCpuUs / b.redisCpuUs).toFixed(2)}×`]);
}
for (const mode of MODES) {
  for (const kind of ['start', 'done'] as const) {
    const a = latencySummary(latencies[ours]![mode.key]![kind]);
    const b = latencySummary(latencies[theirs]![mode.key]![kind]);
    const label = `${mode.label}: enqueue→${kind === 'start' ? 'start' : 'completed'}`;
    for (const p of ['p50', 'p95', 'p99'] as const) {
      rows.push([`${label} ${p} (ms, lower is better)`, a[p], b[p], `${(b[p] / a[p]).toFixed(2)}× faster`]);
    }
  }
}
console.log(`\n${table(['scenario', 'ojskit', 'BullMQ', 'ratio'], rows)}\n`);
const perRound = results[ours]!.process!.map((x, i) => rate(x) / rate(results[theirs]!.process![i]!));
console.log(
  `Processing ratio per round: ${perRound.map((r) => `${r.toFixed(2)}×`).join(', ')} (median ${median(perRound).toFixed(2)}×; the table's ratio is of the medians).`,
);
console.log('Figures are medians of the rounds. Ratios: throughput rows are ojskit/BullMQ (higher is better); CPU rows ojskit/BullMQ (lower is better);');
console.log('latency rows BullMQ/ojskit (above 1 means ojskit is faster). Redis CPU includes anything else the server ran meanwhile.');
process.exit(0);
