/**
 * A chaos worker process that runs the engine itself: an `@ojskit/client` Worker over `inProcess(driver)`,
 * straight on the store (no gateway between), appending `<job id> <attempt>` to the ledger for every run it
 * starts, like worker.ts. Killed with SIGKILL, its claimed jobs come back only through the store's rescue.
 * Usage: worker-in-process.ts <backend url> <ledger file> <queue>
 */
import { Worker, inProcess } from '@ojskit/client';
import { registerLedgerJob } from './ledger-job.js';
import { createBackend } from '../../src/backends/registry.js';

const [backend, ledger, queue] = process.argv.slice(2) as [string, string, string];
// Started while the store is down (it is restarted during the run): try again until it is back.
const driver = await (async () => {
  for (;;) {
    try {
      return await createBackend(backend);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
})();
// Its own background services too (promoter, rescuer…): they run under leases shared with the gateways.
const worker = new Worker(inProcess(driver), { queues: [queue], concurrency: 8 });
registerLedgerJob(worker, ledger);
worker.start();
process.on('SIGTERM', () => void worker.close({ timeoutMs: 2_000 }).then(() => process.exit(0)));
