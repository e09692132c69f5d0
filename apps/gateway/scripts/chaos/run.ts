/**
 * The long chaos run: prints a table (jobs, terminal, lost, ran more than once, kills…) per backend.
 * Run: pnpm --filter @ojskit/gateway chaos
 * Options (env): CHAOS_BACKENDS (redis,postgres), CHAOS_JOBS (2000), CHAOS_WORKERS (4 over HTTP),
 * CHAOS_IN_PROCESS_WORKERS (2), CHAOS_MS (60000), CHAOS_KILL_EVERY_MS (1000), CHAOS_STORE_RESTARTS (3),
 * CHAOS_SETTLE_MS (120000).
 */
import { formatReport, runChaos, storeAvailable } from './chaos.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const backends = (process.env['CHAOS_BACKENDS'] ?? 'redis,postgres').split(',') as Array<'redis' | 'postgres'>;
let failed = false;
for (const backend of backends) {
  if (!storeAvailable(backend)) {
    console.error(`chaos: cannot start a private ${backend} here (binaries not on the PATH)`);
    process.exit(2);
  }
  const report = await runChaos({
    backend,
    jobs: env('CHAOS_JOBS', 2_000),
    workers: env('CHAOS_WORKERS', 4),
    inProcessWorkers: env('CHAOS_IN_PROCESS_WORKERS', 2),
    chaosMs: env('CHAOS_MS', 60_000),
    killEveryMs: env('CHAOS_KILL_EVERY_MS', 1_000),
    storeRestarts: env('CHAOS_STORE_RESTARTS', 3),
    settleMs: env('CHAOS_SETTLE_MS', 120_000),
    log: (line) => console.error(`  ${line}`),
  });
  console.log(formatReport(backend, report));
  failed ||= !(report.lost === 0 && report.terminal === report.jobs && report.attemptMismatches === 0);
}
process.exit(failed ? 1 : 0);
