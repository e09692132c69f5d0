/**
 * A chaos worker process: an `@ojskit/client` Worker over HTTP that appends `<job id> <attempt>` to a ledger
 * file for every run it starts, so the chaos run can prove what ran and how often after `kill -9`s.
 * Usage: worker.ts <gateway url> <ledger file> <queue>
 */
import { appendFileSync } from 'node:fs';
import { Worker, http } from '@ojskit/client';

const [url, ledger, queue] = process.argv.slice(2) as [string, string, string];
const worker = new Worker(http(url), { queues: [queue], concurrency: 8 });
worker.register('chaos.job', async (ctx) => {
  // Written before the work: a run killed midway still counts as a run.
  appendFileSync(ledger, `${ctx.job.id} ${ctx.attempt}\n`);
  await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
  return { ok: true };
});
worker.start();
process.on('SIGTERM', () => void worker.close({ timeoutMs: 2_000 }).then(() => process.exit(0)));
