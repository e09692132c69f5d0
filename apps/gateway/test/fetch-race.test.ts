/** Requests racing to FETCH the same job each get it at most once, over a real socket and in-process. */
import { afterEach, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../src/index.js';
import { describeEachBackend } from './support/backends.js';
import { OJS, testHarness } from './support/harness.js';
import { queueName } from './support/flows.js';

describeEachBackend('FETCH races', (backend) => {
  let running: RunningGateway | undefined;
  afterEach(async () => {
    await running?.shutdown();
    running = undefined;
  });

  it('two requests racing for one job over the network: exactly one gets it', async () => {
    const { engine, gateway } = await testHarness(backend);
    running = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
    for (let round = 0; round < 25; round++) {
      const q = queueName('race');
      const { job } = await engine.enqueue({ type: 'race.job', args: [round], options: { queue: q } });
      const fetchOnce = (worker: string) =>
        fetch(`${running!.url}/ojs/v1/workers/fetch`, {
          method: 'POST',
          headers: { 'Content-Type': OJS },
          body: JSON.stringify({ queues: [q], worker_id: worker }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { jobs: Array<{ id: string; worker_id: string }> } }));
      const [a, b] = await Promise.all([fetchOnce('worker-a'), fetchOnce('worker-b')]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const winners = [...a.body.jobs, ...b.body.jobs];
      expect(winners.map((j) => j.id)).toEqual([job.id]);
      expect((await engine.getJob(job.id)).job).toMatchObject({ state: 'active', attempt: 1, worker_id: winners[0]!.worker_id });
    }
  });

  it('many concurrent fetchers over many jobs: every job handed out exactly once', async () => {
    const h = await testHarness(backend);
    const q = queueName('race');
    await h.engine.enqueueBatch({ jobs: Array.from({ length: 60 }, (_, i) => ({ type: 'race.job', args: [i], options: { queue: q } })) });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.json('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 5, worker_id: `w${i}` })),
    );
    const ids = results.flatMap((r) => r.body.jobs.map((j: { id: string }) => j.id));
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
  });
});
