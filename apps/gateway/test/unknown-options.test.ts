/**
 * Every body that carries enqueue options refuses a key it does not know (spec/envelope.md E16): the error
 * names the key, the accepted ones and the nearest, and nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { MEMORY } from './support/backends.js';
import { useHarness } from './support/harness.js';
import { queueName } from './support/flows.js';

describe('unknown keys under options (HTTP)', () => {
  const h = useHarness(MEMORY);

  const bodies = (queue: string): Array<[string, string, unknown, string]> => [
    ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { queue, qeueu: queue } }, 'options.qeueu'],
    ['POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { queue, delay: 'PT1H' } }, 'options.delay'],
    [
      'POST',
      '/ojs/v1/jobs/batch',
      {
        jobs: [
          { type: 'a.b', args: [], options: { queue } },
          { type: 'a.b', args: [], options: { queue, max_attempts: 7 } },
        ],
      },
      'options.max_attempts',
    ],
    ['POST', '/ojs/v1/workflows', { type: 'group', options: { queue, prority: 1 }, jobs: [{ type: 'a.b', args: [] }] }, 'options.prority'],
    ['POST', '/ojs/v1/workflows', { type: 'chain', steps: [{ type: 'a.b', args: [], options: { queue, run_at: 'x' } }] }, 'options.run_at'],
    ['POST', '/ojs/v1/cron', { name: `c-${queue}`, cron: '0 * * * *', type: 'a.b', options: { queue, qeueu: queue } }, 'options.qeueu'],
  ];

  it('answers 400 invalid_request naming the key and the accepted options, and stores nothing', async () => {
    const queue = queueName('unknown-opts');
    for (const [method, path, body, field] of bodies(queue)) {
      const { res, body: answer } = await h.json(method, path, body);
      expect(res.status, `${path} ${field}`).toBe(400);
      expect(answer.error).toMatchObject({ code: 'invalid_request', retryable: false });
      expect(answer.error.details.field).toBe(field);
      expect(answer.error.message).toContain('Accepted under');
    }
    const stats = await h.json('GET', `/ojs/v1/queues/${queue}/stats`);
    expect(stats.body.queue).toMatchObject({ available: 0, scheduled: 0, pending: 0 });
    expect((await h.json('GET', `/ojs/v1/cron/c-${queue}`)).res.status).toBe(404);
  });

  it('suggests the nearest option', async () => {
    const { body } = await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { qeueu: 'email' } });
    expect(body.error.details.suggestion).toBe('options.queue');
    expect(body.error.message).toContain("Did you mean 'options.queue'?");
  });

  it('still keeps unknown top-level attributes', async () => {
    const { res, body } = await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], x_trace: 't-1', options: { queue: queueName('keep') } });
    expect(res.status).toBe(201);
    expect(body.job.x_trace).toBe('t-1');
  });
});
