/** Measurement helpers for the benchmarks: wall time, Node CPU, Redis CPU, percentiles, tables. */
import type { Redis } from 'ioredis';

export interface Sample {
  seconds: number;
  nodeCpuUs: number;
  redisCpuUs: number;
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const value = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return value('used_cpu_sys') + value('used_cpu_user');
}

/** Runs `fn` and measures wall time, this process's CPU and the Redis server's CPU. */
export async function measure(redis: Redis, fn: () => Promise<void>): Promise<Sample> {
  const redisBefore = await redisCpuSeconds(redis);
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const redisAfter = await redisCpuSeconds(redis);
  return { seconds, nodeCpuUs: cpu.user + cpu.system, redisCpuUs: (redisAfter - redisBefore) * 1e6 };
}

/**
 * Idle times before each latency sample, uniform in [minMs, maxMs), the same for a given seed: both systems
 * wait the same sequence, so neither's idle worker is caught at a luckier moment (mulberry32).
 */
export function idleGaps(count: number, minMs: number, maxMs: number, seed: number): number[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => minMs + next() * (maxMs - minMs));
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function latencySummary(values: readonly number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

/** Prints rows as a Markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? format(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i]).length)));
  const line = (r: ReadonlyArray<string | number>) => `| ${r.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ')} |`;
  return [line(cells[0]!), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

export function format(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(2);
}
