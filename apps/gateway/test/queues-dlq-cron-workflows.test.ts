/** Queue, dead-letter, cron and workflow routes. */
import { expect, it } from 'vitest';
import { JOB_STATES } from '@ojskit/core';
import { describeEachBackend } from './support/backends.js';
import { useHarness } from './support/harness.js';
import { claim, deadLetter, push, queueName } from './support/flows.js';

describeEachBackend('queues', (backend) => {
  const h = useHarness(backend);

  it('lists queues with pagination, stats in three copies, pause/resume idempotent', async () => {
    const q = queueName();
    await push(h, q);
    const list = await h.json('GET', '/ojs/v1/queues?limit=200&offset=0');
    expect(list.res.status).toBe(200);
    expect(list.body.queues).toContainEqual(expect.objectContaining({ name: q, status: 'active', paused: false }));
    expect(list.body.pagination).toMatchObject({ limit: 200, offset: 0, has_more: false });

    const stats = await h.json('GET', `/ojs/v1/queues/${q}/stats`);
    expect(stats.res.status).toBe(200);
    for (const state of JOB_STATES) {
      expect(stats.body[state]).toBeTypeOf('number');
      expect(stats.body.queue[state]).toBe(stats.body[state]);
      expect(stats.body.stats[state]).toBe(stats.body[state]);
    }
    expect(stats.body).toMatchObject({ name: q, available: 1, stats: { queue: q, depth: 1 } });

    const unknown = await h.json('GET', `/ojs/v1/queues/${queueName('never')}/stats`);
    expect(unknown.res.status).toBe(200);
    expect(unknown.body.available).toBe(0);

    for (let i = 0; i < 2; i++) {
      const paused = await h.json('POST', `/ojs/v1/queues/${q}/pause`);
      expect(paused.res.status).toBe(200);
      expect(paused.body.queue).toMatchObject({ name: q, paused: true, status: 'paused' });
    }
    expect((await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q] })).body.jobs).toEqual([]);
    expect((await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { queue: q } })).res.status).toBe(201);
    const resumed = await h.json('POST', `/ojs/v1/queues/${q}/resume`);
    expect(resumed.body.queue).toMatchObject({ paused: false, status: 'active' });
    expect((await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q] })).body.jobs).toHaveLength(1);
  });

  it('invalid queue names and query parameters are 400 invalid_request', async () => {
    for (const path of ['/ojs/v1/queues/Upper/stats', '/ojs/v1/queues/-lead/pause', `/ojs/v1/queues/${'a'.repeat(129)}/resume`, '/ojs/v1/queues/a%20b/stats']) {
      const { res, body } = await h.json(path.endsWith('stats') ? 'GET' : 'POST', path);
      expect(res.status, path).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_request', details: { field: 'name' } });
    }
    for (const query of ['limit=0', 'limit=abc', 'offset=-1', 'limit=1.5']) {
      const { res, body } = await h.json('GET', `/ojs/v1/queues?${query}`);
      expect(res.status, query).toBe(400);
      expect(body.error.details.location).toBe('query');
    }
  });
});

describeEachBackend('dead letter', (backend) => {
  const h = useHarness(backend);

  it('list, stats, get, retry, delete', async () => {
    const q = queueName();
    const job = await deadLetter(h, q);
    const list = await h.json('GET', `/ojs/v1/dead-letter?queue=${q}&limit=10`);
    expect(list.res.status).toBe(200);
    expect(list.body.jobs.map((j: any) => j.id)).toEqual([job.id]);
    expect(list.body.jobs[0].errors).toHaveLength(1);
    expect(list.body.pagination.total).toBe(1);

    const stats = await h.json('GET', '/ojs/v1/dead-letter/stats');
    expect(stats.res.status).toBe(200);
    expect(stats.body.by_queue[q]).toBe(1);

    expect((await h.json('GET', `/ojs/v1/dead-letter/${job.id}`)).body.job.id).toBe(job.id);
    const retried = await h.json('POST', `/ojs/v1/dead-letter/${job.id}/retry`);
    expect(retried.res.status).toBe(200);
    expect(retried.body.job).toMatchObject({ state: 'available', attempt: 0 });
    expect((await h.json('GET', `/ojs/v1/dead-letter/${job.id}`)).res.status).toBe(404);

    const second = await deadLetter(h, queueName());
    const deleted = await h.json('DELETE', `/ojs/v1/dead-letter/${second.id}`);
    expect(deleted.body).toEqual({ deleted: true, job_id: second.id });
    expect((await h.json('GET', `/ojs/v1/jobs/${second.id}`)).res.status).toBe(404);
    expect((await h.json('DELETE', `/ojs/v1/dead-letter/${second.id}`)).res.status).toBe(404);
  });

  it('bulk retry requires confirm:true', async () => {
    const q = queueName();
    await deadLetter(h, q);
    await deadLetter(h, q);
    const refused = await h.json('POST', '/ojs/v1/dead-letter/retry', { filter: { queue: q } });
    expect(refused.res.status).toBe(400);
    const done = await h.json('POST', '/ojs/v1/dead-letter/retry', { filter: { queue: q }, confirm: true });
    expect(done.res.status).toBe(200);
    expect(done.body).toMatchObject({ action: 'retry', matched: 2, succeeded: 2, failed: 0 });
  });
});

describeEachBackend('cron', (backend) => {
  const h = useHarness(backend);

  it('register 201 then replace 200 (both forms), list, get, patch, delete', async () => {
    const name = queueName('cron');
    const created = await h.json('POST', '/ojs/v1/cron', { name, expression: '*/5 * * * *', job_template: { type: 'report.build', args: [1] } });
    expect(created.res.status).toBe(201);
    expect(created.body.created).toBeUndefined();
    expect(created.body.cron).toEqual(created.body.cron_job);
    expect(created.body.cron).toMatchObject({ name, expression: '*/5 * * * *', cron: '*/5 * * * *', timezone: 'UTC', overlap_policy: 'skip', enabled: true });
    const replaced = await h.json('POST', '/ojs/v1/cron', { name, cron: '0 * * * *', type: 'report.build', args: [] });
    expect(replaced.res.status).toBe(200);
    expect(replaced.body.cron.expression).toBe('0 * * * *');

    const list = await h.json('GET', '/ojs/v1/cron?enabled=true');
    expect(list.body.crons.map((c: any) => c.name)).toContain(name);
    expect(list.body.cron_jobs).toEqual(list.body.crons);
    expect((await h.json('GET', '/ojs/v1/cron?enabled=maybe')).res.status).toBe(400);

    expect((await h.json('GET', `/ojs/v1/cron/${name}`)).body.cron.name).toBe(name);
    const disabled = await h.json('PATCH', `/ojs/v1/cron/${name}`, { enabled: false });
    expect(disabled.body.cron).toMatchObject({ enabled: false, next_run_at: null });
    const removed = await h.json('DELETE', `/ojs/v1/cron/${name}`);
    expect(removed.body).toMatchObject({ deleted: true, name });
    expect((await h.json('GET', `/ojs/v1/cron/${name}`)).res.status).toBe(404);
    expect((await h.json('DELETE', `/ojs/v1/cron/${name}`)).res.status).toBe(404);
  });

  it('invalid registrations and names are 400', async () => {
    expect((await h.json('POST', '/ojs/v1/cron', { name: 'x', expression: 'not cron', job_template: { type: 'a.b' } })).res.status).toBe(400);
    expect(
      (await h.json('POST', '/ojs/v1/cron', { name: 'x', expression: '* * * * *', timezone: 'Mars/Olympus', job_template: { type: 'a.b' } })).res.status,
    ).toBe(400);
    expect((await h.json('GET', '/ojs/v1/cron/Bad_Name')).res.status).toBe(400);
  });
});

describeEachBackend('workflows', (backend) => {
  const h = useHarness(backend);

  it('create 201 with wrapper and top-level mirror; get; cancel; cancel again 409', async () => {
    const q = queueName();
    const created = await h.json('POST', '/ojs/v1/workflows', {
      type: 'chain',
      name: 'etl',
      steps: [
        { type: 'etl.extract', args: [], options: { queue: q } },
        { type: 'etl.load', args: [], options: { queue: q } },
      ],
    });
    expect(created.res.status).toBe(201);
    const wf = created.body.workflow;
    expect(wf).toMatchObject({ type: 'chain', name: 'etl', state: 'running', steps_total: 2 });
    expect(created.body).toMatchObject({ id: wf.id, type: 'chain', name: 'etl', state: 'running', metadata: wf.metadata });
    const got = await h.json('GET', `/ojs/v1/workflows/${wf.id}`);
    expect(got.body.workflow.id).toBe(wf.id);
    const step = await claim(h, q);
    expect(step.type).toBe('etl.extract');
    const cancelled = await h.json('DELETE', `/ojs/v1/workflows/${wf.id}`);
    expect(cancelled.res.status).toBe(200);
    expect(cancelled.body.workflow.state).toBe('cancelled');
    expect((await h.json('DELETE', `/ojs/v1/workflows/${wf.id}`)).res.status).toBe(409);
  });

  it('bad shapes are 400', async () => {
    expect((await h.json('POST', '/ojs/v1/workflows', { type: 'chain', steps: [] })).res.status).toBe(400);
    expect((await h.json('POST', '/ojs/v1/workflows', { type: 'loop', steps: [{ type: 'a.b' }] })).res.status).toBe(400);
    expect((await h.json('POST', '/ojs/v1/workflows', { type: 'batch', jobs: [{ type: 'a.b', args: [] }] })).res.status).toBe(400);
  });
});
