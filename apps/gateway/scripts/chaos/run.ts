/**
 * The long chaos run: prints a table (jobs, terminal, lost, ran more than once, kills…) for the Redis
 * backend. Run: pnpm --filter @ojskit/gateway chaos
 * Options (env): CHAOS_JOBS (2000), CHAOS_WORKERS (4), CHAOS_MS (60000), CHAOS_KILL_EVERY_MS (1000),
 * CHAOS_REDIS_RESTARTS (3), CHAOS_SETTLE_MS (120000).
 */
import { formatReport, redisServerAvailable, runChaos } from './chaos.js';

if (!redisServerAvailable()) {
  console.error('chaos: redis-server is not on the PATH');
  process.exit(2);
}
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const report = await runChaos({
  jobs: env('CHAOS_JOBS', 2_000),
  workers: env('CHAOS_WORKERS', 4),
  chaosMs: env('CHAOS_MS', 60_000),
  killEveryMs: env('CHAOS_KILL_EVERY_MS', 1_000),
  redisRestarts: env('CHAOS_REDIS_RESTARTS', 3),
  settleMs: env('CHAOS_SETTLE_MS', 120_000),
  log: (line) => console.error(`  ${line}`),
});
console.log(formatReport('redis', report));
process.exit(report.lost === 0 && report.terminal === report.jobs && report.attemptMismatches === 0 ? 0 : 1);
