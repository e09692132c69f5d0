/** Cancellation and timeouts: the handler's AbortSignal fires when the job is cancelled or runs too long. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, JobCancelledError, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';

export async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api);
  const reasons: unknown[] = [];

  // #region handler
  worker.register('video.transcode', async ({ args: [file], signal }) => {
    try {
      await sleep(60_000, undefined, { signal }); // pass the signal to anything that accepts one
      return `${String(file)}.mp4`;
    } catch (error) {
      // signal.reason says why: JobCancelledError, JobTimeoutError or WorkerClosingError.
      console.log('stopped:', signal.reason instanceof JobCancelledError ? 'cancelled' : signal.reason);
      reasons.push(signal.reason);
      throw error;
    }
  });
  worker.on('cancelled', (job) => console.log(`job ${job.id} was cancelled while running`));
  worker.start();
  // #endregion handler

  // #region cancel
  const job = await client.enqueue('video.transcode', ['holiday.mov']);
  await client.waitFor(job.id, { states: ['active'] }); // wait until a worker has it
  const cancelled = await client.cancel(job.id); // the handler's signal fires now
  console.log(cancelled.state, cancelled.previousState); // cancelled active
  // #endregion cancel

  // #region timeout
  // Each attempt may run at most 200 ms; then the signal fires and the attempt fails with code 'timeout'.
  const slow = await client.enqueue('video.transcode', ['huge.mov'], { timeoutMs: 200, retry: { maxAttempts: 1 } });
  const timedOut = await client.waitFor(slow.id);
  console.log(timedOut.state, timedOut.error?.code); // discarded timeout
  // #endregion timeout

  await worker.close();
  await api.close();
  return { cancelled, timedOut, reasons };
}
