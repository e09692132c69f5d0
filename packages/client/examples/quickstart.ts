/** Quick start: a typed client and worker in one process, over the memory backend. */
// #region imports
import { Client, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';
// #endregion imports

// #region registry
// Job types with their args (and result): producers and handlers are checked against it.
interface Jobs {
  'email.send': { args: [to: string, subject: string]; result: { messageId: string } };
}
// #endregion registry

// #region stand-in
// Stands in for your mail API (any function that sends; it gets the signal to stop early).
async function sendEmail(to: string, _subject: string, _options: { signal: AbortSignal }): Promise<string> {
  return `msg-${to}`;
}
// #endregion stand-in

export async function main() {
  // #region setup
  const api = inProcess(new MemoryDriver()); // the engine in this process, over a backend
  const client = new Client<Jobs>(api);
  // #endregion setup

  // #region worker
  const worker = new Worker<Jobs>(api, { queues: ['email'], concurrency: 20 });
  worker.register('email.send', async ({ args: [to, subject], signal }) => {
    const messageId = await sendEmail(to, subject, { signal });
    return { messageId };
  });
  worker.on('completed', (job, result) => console.log(`job ${job.id} completed`, result));
  worker.on('failed', (job, error, { willRetry }) => console.warn(`job ${job.id} failed`, error, { willRetry }));
  worker.start();
  // #endregion worker

  // #region enqueue
  const job = await client.enqueue('email.send', ['ada@example.com', 'Welcome!'], { queue: 'email' });
  const done = await client.waitFor(job.id, { timeoutMs: 10_000 });
  console.log(done.state, done.result); // completed { messageId: 'msg-ada@example.com' }
  // #endregion enqueue

  // #region close
  await worker.close();
  await api.close();
  // #endregion close
  return done;
}
