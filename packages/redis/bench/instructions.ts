/**
 * Redis instructions per job (issue 4), a yardstick that does not move with the machine's load: starts a
 * Redis of its own under valgrind's callgrind, then counts the instructions Redis executes for the claim
 * script alone, the batched-ACK script alone (50 jobs per call each) and a whole SDK-worker run. CPU-time
 * figures (`bench:breakdown`) swing by ±30 % between identical runs on a shared machine; these repeat to
 * about 2 %. Needs `valgrind` and `redis-server` on PATH; callgrind runs Redis ~50× slower, so keep
 * BENCH_JOBS small. Where the instructions go: BENCH_KEEP=<dir> keeps the three callgrind dumps there
 * (claim, ack, sdk) for `callgrind_annotate --inclusive=yes`.
 *
 * BENCH_HISTORY: `on` (default), `off` (the driver's `history: false`) or `queue` (history on in the driver, the
 * measured queues configured with `history: false`, spec/history.md H9).
 *
 * Usage: pnpm bench:instructions  (env: BENCH_JOBS=2000, BENCH_PORT=6399, BENCH_KEEP, BENCH_HISTORY)
 */
import { randomUUID } from 'node:crypto';
import { ojskitSystem } from './ojskit-system.js';
import { benchAck } from './ack-op.js';
import { startCallgrindRedis } from './callgrind.js';

const N = Number(process.env.BENCH_JOBS ?? 2_000);
const PORT = Number(process.env.BENCH_PORT ?? 6399);
const KEEP = process.env.BENCH_KEEP;
const BATCH = 50;

const redis = await startCallgrindRedis(PORT, KEEP);
const { url, count } = redis;
try {
  await measure();
} finally {
  await redis.stop();
}

async function measure(): Promise<void> {
  const ojskit = ojskitSystem(url, `ojsinstr:${randomUUID().slice(0, 8)}`);
  const driver = ojskit.driver;
  try {
    if (process.env.BENCH_HISTORY === 'queue') {
      for (const name of ['warm', 'alone', 'sdk']) await driver.queueConfigSet({ name, history: false, updated_at: new Date().toISOString() });
    }
    await ojskit.bulk(200, 'warm');
    await ojskit.process(200, 'warm');
    await ojskit.bulk(N, 'alone');
    const claimed: Array<{ id: string; attempt: number }> = [];
    const claim = await count('claim', async () => {
      for (let i = 0; i < N; i += BATCH) {
        const now = Date.now();
        const result = await driver.jobClaim({ queues: ['alone'], limit: BATCH, workerId: 'bench', now, nowIso: new Date(now).toISOString() });
        for (const job of result.jobs) claimed.push({ id: job.id, attempt: job.attempt });
      }
    });
    const ack = await count('ack', async () => {
      for (let i = 0; i < claimed.length; i += BATCH) {
        const now = Date.now();
        const nowIso = new Date(now).toISOString();
        await benchAck(driver, claimed.slice(i, i + BATCH), 'bench', now, nowIso);
      }
    });
    await ojskit.bulk(N, 'sdk');
    const sdk = await count('sdk', () => ojskit.process(N, 'sdk'));
    const k = (n: number) => (n / N / 1000).toFixed(1);
    console.log(
      `Redis instructions per job (thousands), ${N} jobs, history ${process.env.BENCH_HISTORY ?? 'on'}: job-claim alone ${k(claim)}, ACK batch (jobCompleteMany: job-complete-many) alone ${k(ack)}, SDK worker run ${k(sdk)}`,
    );
  } finally {
    await ojskit.close();
  }
}
