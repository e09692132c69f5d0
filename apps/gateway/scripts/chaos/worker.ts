/**
 * A chaos worker process: an `@ojskit/client` Worker over HTTP that appends `<job id> <attempt>` to a ledger
 * file for every run it starts, so the chaos run can prove what ran and how often after `kill -9`s.
 * Usage: worker.ts <gateway url> <ledger file> <queue>
 */
import { Worker, http } from '@ojskit/client';
import { registerLedgerJob } from './ledger-job.js';

const [url, ledger, queue] = process.argv.slice(2) as [string, string, string];
const worker = new Worker(http(url), { queues: [queue], concurrency: 8 });
registerLedgerJob(worker, ledger);
worker.start();
process.on('SIGTERM', () => void worker.close({ timeoutMs: 2_000 }).then(() => process.exit(0)));
