/** `GET /ojs/v1/jobs/:id/history` over HTTP: the lines where the backend records them, `422 unsupported` where not. */
import { expect, it } from 'vitest';
import { describeEachBackend } from './support/backends.js';
import { testHarness } from './support/harness.js';
import { claim, push, queueName } from './support/flows.js';

describeEachBackend('job history route', (backend) => {
  it('answers the history with the manifest saying so, or 422 unsupported with the manifest saying not', async () => {
    const h = await testHarness(backend);
    const q = queueName('history');
    const job = await push(h, q);
    await claim(h, q);
    await h.json('POST', '/ojs/v1/workers/ack', { job_id: job.id, worker_id: 'w1' });
    const manifest = (await h.json('GET', '/ojs/manifest')).body;
    const { res, body } = await h.json('GET', `/ojs/v1/jobs/${job.id}/history`);
    if (h.driver.capabilities.history === true) {
      expect(manifest.capabilities.job_history).toBe(true);
      expect(manifest.extensions.experimental.map((e: { name: string }) => e.name)).toContain('x-job-history');
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ job_id: job.id, dropped: 0 });
      expect(body.history.map((l: { trigger: string }) => l.trigger)).toEqual(['push', 'fetch', 'ack']);
      expect(body.history[2]).toMatchObject({ from: 'active', to: 'completed', attempt: 1, worker_id: 'w1' });
      const unknown = await h.json('GET', '/ojs/v1/jobs/019a0000-0000-7000-8000-000000000000/history');
      expect(unknown.res.status).toBe(404);
    } else {
      expect(manifest.capabilities.job_history).toBe(false);
      expect(res.status).toBe(422);
      expect(body.error.code).toBe('unsupported');
    }
    // A malformed id is answered as INFO answers it.
    const malformed = (await h.json('GET', '/ojs/v1/jobs/not-a-uuid/history')).res.status;
    expect(malformed).toBe((await h.json('GET', '/ojs/v1/jobs/not-a-uuid')).res.status);
  });
});
