/** Measurement helpers for the benchmark: wall time, Node CPU, PostgreSQL server CPU, percentiles, tables. */
import { readdirSync, readFileSync } from 'node:fs';

export interface Sample {
  seconds: number;
  nodeCpuUs: number;
  /** The kernel's share of `nodeCpuUs` (socket writes and reads: loopback TCP is charged to its sender). */
  nodeSystemUs: number;
  /** CPU of every postgres process on this machine (and of the ones that exited meanwhile); NaN when unreadable. */
  postgresCpuUs: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The postmaster whose processes `measure` counts (see `watchServer`); undefined: every postgres process. */
let postmaster: number | undefined;

/**
 * Counts only the processes of the server `backendPid` (a `pg_backend_pid()`) belongs to, so another
 * cluster on the machine is not billed to this one.
 */
export function watchServer(backendPid: number): void {
  try {
    const stat = readFileSync(`/proc/${backendPid}/stat`, 'utf8');
    postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    postmaster = undefined; // not a server on this machine: every postgres process, or none
  }
}

/**
 * CPU seconds used by PostgreSQL so far: live server processes (utime + stime) plus what the postmaster
 * collected from backends that exited (cutime + cstime), read from /proc. Counts whatever else the server
 * runs meanwhile (other clients, autovacuum) too.
 */
function postgresCpuSeconds(): number {
  let ticks = 0;
  let seen = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(open + 1, close);
    if (comm !== 'postgres' && comm !== 'postmaster') continue;
    const fields = stat.slice(close + 2).split(' ');
    // fields[1] is the parent pid (field 4 of stat).
    if (postmaster !== undefined && Number(entry) !== postmaster && Number(fields[1]) !== postmaster) continue;
    seen = true;
    // fields[0] is the state (field 3 of stat); utime, stime, cutime, cstime are fields 14–17.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return seen ? ticks / TICKS_PER_SECOND : NaN;
}

/** Runs `fn` and measures wall time, this process's CPU and the PostgreSQL server's CPU. */
export async function measure(fn: () => Promise<void>): Promise<Sample> {
  const pgBefore = postgresCpuSeconds();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await fn();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const pgAfter = postgresCpuSeconds();
  return { seconds, nodeCpuUs: cpu.user + cpu.system, nodeSystemUs: cpu.system, postgresCpuUs: (pgAfter - pgBefore) * 1e6 };
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
  if (Number.isNaN(n)) return '—'; // a scenario the system does not run
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(2);
}
