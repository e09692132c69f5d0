/** The chaos job both kinds of chaos worker run: a ledger line per run started, then a short wait. */
import { appendFileSync } from 'node:fs';
import type { Worker } from '@ojskit/client';

/** Registers `chaos.job` on `worker`, appending `<job id> <attempt>` to `ledger` for every run it starts. */
export function registerLedgerJob(worker: Worker, ledger: string): void {
  worker.register('chaos.job', async (ctx) => {
    // Written before the work: a run killed midway still counts as a run.
    appendFileSync(ledger, `${ctx.job.id} ${ctx.attempt}\n`);
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 40));
    return { ok: true };
  });
}
