/** Graceful shutdown: stop fetching, let running jobs finish, release the rest to other workers. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';

export async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api, { shutdownTimeoutMs: 300 });
  worker.register('import.rows', async ({ args: [ms], signal }) => sleep(ms as number, 'imported', { signal }));
  worker.start();
  const quick = await client.enqueue('import.rows', [50]);
  const long = await client.enqueue('import.rows', [60_000]);
  await client.waitFor(long.id, { states: ['active'] });
  let closed: Promise<void> = Promise.resolve();

  // #region shutdown
  process.once('SIGTERM', () => {
    // Stops fetching, waits up to shutdownTimeoutMs for running jobs, then aborts the stragglers
    // (signal.reason is a WorkerClosingError) and hands them back to the queue, attempt not consumed.
    closed = worker.close(); // or worker.close({ timeoutMs: 10_000 })
  });
  worker.on('released', (job) => console.log(`job ${job.id} released for another worker`));
  // #endregion shutdown

  process.emit('SIGTERM');
  await closed;
  const result = { quick: await client.get(quick.id), long: await client.get(long.id) };
  await api.close();
  return result;
}
