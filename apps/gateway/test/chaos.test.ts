/**
 * The short chaos run (issue 25): jobs enqueued across 8 s of SIGKILLs of worker processes and gateways and a
 * Redis kill and restart, on a private Redis this test starts on a free port (never the shared one). The
 * ledger must show every job terminal and completed, none lost, no run on an attempt the store never handed
 * out. Jobs run more than once are counted, not refused: delivery is at-least-once.
 * The long form, printing its table: `pnpm --filter @ojskit/gateway chaos`.
 */
import { expect, it } from 'vitest';
import { formatReport, redisServerAvailable, runChaos } from '../scripts/chaos/chaos.js';

const available = redisServerAvailable();
if (!available && process.env['CI'] === 'true') throw new Error('redis-server is not on the PATH (CI=true requires it for the chaos run)');

// Skipped only on a machine without a redis-server binary to start privately (it fails under CI=true above).
it.skipIf(!available)('every job terminal and none lost across kill -9 of workers, gateways and Redis [redis]', async () => {
  const report = await runChaos({ jobs: 150, workers: 3, chaosMs: 8_000, killEveryMs: 700, redisRestarts: 1, settleMs: 45_000 });
  console.log(formatReport('redis', report));
  expect(report.lost).toBe(0);
  expect(report.terminal).toBe(report.jobs);
  expect(report.completed).toBe(report.jobs);
  expect(report.neverRan).toBe(0);
  expect(report.attemptMismatches).toBe(0);
  expect(report.kills.redis).toBe(1);
}, 150_000);
