/**
 * ojskit on Kafka (kafka+redis: the Redis adapter as the store, the test broker as the dispatch log) against
 * ojskit's Redis adapter alone and BullMQ, same Redis, same run, same workload as packages/redis/bench (whose
 * System drivers, latency loop and measurement helpers this reuses):
 *   1. enqueue N in bulk (chunks of 1 000)        3. process N already-queued no-op jobs at concurrency 50
 *   2. enqueue N one by one from 50 producers     4. idle worker latency: enqueue→start, enqueue→completed
 * Rounds rotate which system goes first; figures are medians of the rounds; latency samples alternate between
 * the systems in blocks. CPU per job: this Node process (for Kafka: relay, dispatcher, engine and worker), the
 * Redis server, and the test broker's process.
 *
 * The broker is librdkafka's mock cluster (broker/): in memory, one process, no disk, no replication, and an
 * idle Fetch it answers only after the client's whole wait (see the README). Its figures are this adapter's on
 * this machine, not a Kafka cluster's. With KAFKA_BROKERS set, that broker is used instead.
 *
 * Usage: pnpm --filter @ojskit/kafka bench  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_ROUNDS=3,
 *   BENCH_LATENCY_SAMPLES=500, BENCH_WARMUP_RUNS=1, BENCH_MAX_WAIT_MS: the dispatcher's idle fetch wait,
 *   BENCH_SYSTEMS=kafka,redis,bullmq; add
 *   kafka-awaited for the Kafka driver with awaitEventProduces, kafka-event-records for one events-topic record
 *   per event, kafka-no-mirror for the driver without the events topic)
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { bullmqSystem } from '../../redis/bench/bullmq-system.js';
import { ojskitSystem, CONCURRENCY, PRODUCERS, type System } from '../../redis/bench/ojskit-system.js';
import { idleGaps, latencySummary, measure, table, type Sample } from '../../redis/bench/measure.js';
import { startBroker } from '../test/support/broker.js';
import type { KafkaDriverOptions } from '../src/index.js';
import { kafkaSystem } from './kafka-system.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 500);
const WARMUP_RUNS = Number(process.env.BENCH_WARMUP_RUNS ?? 1);
const LATENCY_BLOCK = 50;
const MAX_WAIT_MS = process.env.BENCH_MAX_WAIT_MS === undefined ? undefined : Number(process.env.BENCH_MAX_WAIT_MS);
const WANTED = (process.env.BENCH_SYSTEMS ?? 'kafka,redis,bullmq').split(',');
const run = randomUUID().slice(0, 8);

const broker = await startBroker({ brokers: 3, rebalanceDelayMs: 100 });
/** The test broker's CPU time so far (µs), from /proc; 0 for an external broker. */
function brokerCpuUs(): number {
  if (broker.pid === undefined) return 0;
  const fields = readFileSync(`/proc/${broker.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime (fields 14 and 15 of stat; 12 and 13 after the command name), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const admin = new Redis(url);
const systems: System[] = [];
/** The Kafka driver with `options` (and BENCH_MAX_WAIT_MS), on its own prefix. */
const kafkaVariant = (tag: string, options: Partial<KafkaDriverOptions>, name?: string): Promise<System> =>
  kafkaSystem(broker.brokers, url, `kbench${tag}${run}`, { ...(MAX_WAIT_MS === undefined ? {} : { maxWaitMs: MAX_WAIT_MS }), ...options }, name);
if (WANTED.includes('kafka')) systems.push(await kafkaVariant('', {}));
// The issue's awaited event produces, for their cost (not the default: see the README, "Events").
if (WANTED.includes('kafka-awaited')) systems.push(await kafkaVariant('aw', { awaitEventProduces: true }, 'kafka+redis awaited events'));
// The events topic's previous format, one record per event (eventRecords: 'event'), for its cost.
if (WANTED.includes('kafka-event-records')) systems.push(await kafkaVariant('ev', { eventRecords: 'event' }, 'kafka+redis event per record'));
// Without the events topic (mirrorEvents: false): what the mirror costs (see the README, "Costs").
if (WANTED.includes('kafka-no-mirror')) systems.push(await kafkaVariant('nm', { mirrorEvents: false }, 'kafka+redis, no events topic'));
if (WANTED.includes('redis')) systems.push(ojskitSystem(url, `ojsbench:${run}`, {}, 'ojskit redis'));
if (WANTED.includes('bullmq')) systems.push(bullmqSystem(url, `bullbench:${run}`));

type Measured = Sample & { brokerCpuUs: number };
const results: Record<string, Record<string, Measured[]>> = {};
const latencies: Record<string, { start: number[]; done: number[] }> = {};
async function timed(system: string, scenario: string, fn: () => Promise<void>): Promise<Measured> {
  const before = brokerCpuUs();
  const sample = await measure(admin, fn);
  const measured = { ...sample, brokerCpuUs: brokerCpuUs() - before };
  ((results[system] ??= {})[scenario] ??= []).push(measured);
  return measured;
}

console.log(
  `ojskit on Kafka vs ojskit on Redis vs BullMQ on ${url}, broker ${broker.pid === undefined ? broker.brokers.join(',') : 'test broker (librdkafka mock, 3 brokers, in memory, one process)'}: ` +
    `${N} jobs, concurrency ${CONCURRENCY}, ${PRODUCERS} producers, ${ROUNDS} rounds, run ${run}` +
    (MAX_WAIT_MS === undefined ? '' : `, dispatcher maxWaitMs ${MAX_WAIT_MS}`),
);
for (const s of systems) {
  for (let w = 0; w < WARMUP_RUNS; w++) {
    await s.bulk(N, `warm-${w}`);
    await s.process(N, `warm-${w}`);
    await s.clear();
  }
  const probe = await s.latencyProbe('warm-latency');
  await probe.run(idleGaps(200, 1, 10, 0));
  await probe.close();
}
for (let round = 0; round < ROUNDS; round++) {
  const order = systems.map((_, i) => systems[(i + round) % systems.length]!);
  const tag = `${run}-${round}`;
  for (const s of order) {
    await timed(s.name, 'bulk', () => s.bulk(N, `bulk-${tag}`));
    await timed(s.name, 'oneByOne', () => s.oneByOne(N, `single-${tag}`));
    await s.clear();
  }
  const line: string[] = [];
  for (const s of order) {
    await s.bulk(N, `work-${tag}`);
    const m = await timed(s.name, 'process', () => s.process(N, `work-${tag}`));
    await s.clear();
    line.push(`${s.name} ${Math.round(N / m.seconds).toLocaleString('en-US')}`);
  }
  console.log(`  round ${round + 1}: processed (jobs/s) ${line.join(', ')}`);
  // Idle-worker latency: every system's probe up at once, samples in blocks, the systems taking turns.
  const gaps = idleGaps(LATENCY_SAMPLES, 1, 10, round + 1);
  const probes = await Promise.all(order.map((s) => s.latencyProbe(`lat-${tag}`)));
  for (let b = 0, block = 0; b < gaps.length; b += LATENCY_BLOCK, block++) {
    for (let k = 0; k < order.length; k++) {
      const i = (k + block) % order.length;
      const lat = await probes[i]!.run(gaps.slice(b, b + LATENCY_BLOCK));
      const all = (latencies[order[i]!.name] ??= { start: [], done: [] });
      all.start.push(...lat.start);
      all.done.push(...lat.done);
    }
  }
  for (const p of probes) await p.close();
  for (const s of systems) await s.clear();
}
for (const s of systems) await s.close();
await admin.quit();
await broker.stop();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const names = systems.map((s) => s.name);
const rows: Array<Array<string | number>> = [];
const scenarios: Array<[string, string]> = [
  ['bulk', 'enqueue bulk (jobs/s)'],
  ['oneByOne', 'enqueue 1-by-1, 50 producers (jobs/s)'],
  ['process', 'process, concurrency 50 (jobs/s)'],
];
for (const [key, label] of scenarios) {
  rows.push([label, ...names.map((n) => median(results[n]![key]!.map((x) => N / x.seconds)))]);
  rows.push(['  Node CPU per job (µs)', ...names.map((n) => median(results[n]![key]!.map((x) => x.nodeCpuUs / N)))]);
  rows.push(['  Redis CPU per job (µs)', ...names.map((n) => median(results[n]![key]!.map((x) => x.redisCpuUs / N)))]);
  rows.push(['  broker CPU per job (µs)', ...names.map((n) => median(results[n]![key]!.map((x) => x.brokerCpuUs / N)))]);
}
for (const kind of ['start', 'done'] as const) {
  for (const p of ['p50', 'p95', 'p99'] as const) {
    rows.push([`idle worker enqueue→${kind === 'start' ? 'start' : 'completed'} ${p} (ms)`, ...names.map((n) => latencySummary(latencies[n]![kind])[p])]);
  }
}
console.log(`\n${table(['scenario', ...names], rows)}\n`);
if (names.includes('kafka+redis') && names.includes('ojskit redis')) {
  const k = results['kafka+redis']!.process!;
  const r = results['ojskit redis']!.process!;
  const perRound = k.map((x, i) => r[i]!.seconds / x.seconds);
  console.log(
    `Processing, kafka+redis / ojskit redis per round: ${perRound.map((x) => `${x.toFixed(2)}×`).join(', ')} (median ${median(perRound).toFixed(2)}×; target ≥ 0.5×).`,
  );
}
console.log('Figures are medians of the rounds; latency percentiles are over every round’s samples. Broker CPU is the test broker process (10 ms ticks).');
process.exit(0);
