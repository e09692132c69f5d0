/** A long-polling FETCH over a real socket: a client that hangs up mid-wait ends it, and nothing is claimed for it. */
import { afterEach, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../src/index.js';
import { describeEachBackend } from './support/backends.js';
import { OJS, testHarness } from './support/harness.js';
import { queueName } from './support/flows.js';

describeEachBackend('FETCH long-poll', (backend) => {
  let running: RunningGateway | undefined;
  afterEach(async () => {
    await running?.shutdown();
    running = undefined;
  });

  it('a client that hangs up during the wait gets nothing claimed for it: a job enqueued afterwards stays available', async () => {
    const { engine, gateway } = await testHarness(backend);
    running = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
    const q = queueName('poll');
    const controller = new AbortController();
    const request = fetch(`${running.url}/ojs/v1/workers/fetch`, {
      method: 'POST',
      headers: { 'Content-Type': OJS },
      body: JSON.stringify({ queues: [q], worker_id: 'gone', wait_ms: 2_000 }),
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(request).rejects.toThrow();
    // The gateway must have seen the connection close before the job arrives: the socket's close is what aborts
    // the FETCH, in the same turn that drops the server's connection count (a fixed pause lost this on a loaded
    // machine).
    await expect.poll(() => connections(running!), { timeout: 10_000, interval: 10 }).toBe(0);
    const { job } = await engine.enqueue({ type: 'poll.job', args: [], options: { queue: q } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await engine.getJob(job.id)).job).toMatchObject({ state: 'available', attempt: 0 });
  });
});

function connections(gateway: RunningGateway): Promise<number> {
  return new Promise((resolve, reject) => gateway.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}
