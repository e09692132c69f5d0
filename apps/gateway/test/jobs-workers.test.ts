/** Job and worker routes: status codes and response shapes per the HTTP binding. */
import { expect, it } from 'vitest';
import { describeEachBackend } from './support/backends.js';
import { testHarness, useHarness } from './support/harness.js';
import { claim, push, queueName, stored } from './support/flows.js';

describeEachBackend('jobs', (backend) => {
  const h = useHarness(backend);

  it('POST /jobs: 201 new; 200 + deduplicated for a unique `ignore` match', async () => {
    const q = queueName();
    const unique = { type: 'uniq.job', args: ['k'], options: { queue: q, unique: { on_conflict: 'ignore' } } };
    const first = await h.json('POST', '/ojs/v1/jobs', unique);
    expect(first.res.status).toBe(201);
    expect(first.body.job).toMatchObject({ state: 'available', queue: q, specversion: '1.0' });
    const again = await h.json('POST', '/ojs/v1/jobs', unique);
    expect(again.res.status).toBe(200);
    expect(again.body).toMatchObject({ deduplicated: true, job: { id: first.body.job.id } });
    expect(again.res.headers.get('location')).toBeNull();
    const rejected = await h.json('POST', '/ojs/v1/jobs', { ...unique, options: { queue: q, unique: { on_conflict: 'reject' } } });
    expect(rejected.res.status).toBe(409);
    expect(rejected.body.error.code).toBe('duplicate');
  });

  it('POST /jobs: scheduled and pending initial states', async () => {
    const q = queueName();
    const scheduled = await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { queue: q, scheduled_at: '+PT1H' } });
    expect(scheduled.res.status).toBe(201);
    expect(scheduled.body.job.state).toBe('scheduled');
    const pending = await h.json('POST', '/ojs/v1/jobs', { type: 'a.b', args: [], options: { queue: q, pending: true } });
    expect(pending.body.job.state).toBe('pending');
    const activated = await h.json('POST', `/ojs/v1/jobs/${pending.body.job.id}/activate`);
    expect(activated.res.status).toBe(200);
    expect(activated.body.job).toMatchObject({ state: 'available', previous_state: 'pending' });
  });

  it('POST /jobs/batch: 201 with every job in order and a count; atomic on failure', async () => {
    const q = queueName();
    const { res, body } = await h.json('POST', '/ojs/v1/jobs/batch', { jobs: [0, 1, 2].map((i) => ({ type: 'b.job', args: [i], options: { queue: q } })) });
    expect(res.status).toBe(201);
    expect(body.count).toBe(3);
    expect(body.jobs.map((j: any) => j.args[0])).toEqual([0, 1, 2]);
    const failed = await h.json('POST', '/ojs/v1/jobs/batch', { jobs: [{ type: 'b.job', args: [], options: { queue: q } }, { type: 'b.job' }] });
    expect(failed.res.status).toBe(400);
    expect(failed.body.error.details.index).toBe(1);
    expect((await h.engine.queueStats(q)).available).toBe(3);
    const empty = await h.json('POST', '/ojs/v1/jobs/batch', { jobs: [] });
    expect(empty.res.status).toBe(400);
  });

  it('GET /jobs/:id is side-effect free; DELETE cancels with previous_state', async () => {
    const job = await push(h, queueName());
    const info = await h.json('GET', `/ojs/v1/jobs/${job.id}`);
    expect(info.res.status).toBe(200);
    expect(info.body.job).toEqual(await stored(h, job.id));
    const cancelled = await h.json('DELETE', `/ojs/v1/jobs/${job.id}`);
    expect(cancelled.res.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({ state: 'cancelled', previous_state: 'available' });
    expect(cancelled.body.job.cancelled_at).toBeDefined();
  });

  it('progress: PUT and GET /jobs/:id/progress, and the SDK alias POST /workers/progress (percentage)', async () => {
    const q = queueName();
    const job = await push(h, q);
    const never = await h.json('GET', `/ojs/v1/jobs/${job.id}/progress`);
    expect(never.body).toMatchObject({ job_id: job.id, progress: null, message: null, data: null });
    await claim(h, q);
    const put = await h.json('PUT', `/ojs/v1/jobs/${job.id}/progress`, { progress: 0.25, message: 'quarter', data: { step: 1 } });
    expect(put.res.status).toBe(200);
    expect(put.body).toMatchObject({ job_id: job.id, state: 'active', progress: 0.25, message: 'quarter', data: { step: 1 } });
    const alias = await h.json('POST', '/ojs/v1/workers/progress', { job_id: job.id, percentage: 60, message: 'more' });
    expect(alias.res.status).toBe(200);
    expect(alias.body.progress).toBeCloseTo(0.6);
    const get = await h.json('GET', `/ojs/v1/jobs/${job.id}/progress`);
    expect(get.body).toMatchObject({ progress: 0.6, message: 'more' });
    const none = await h.json('PUT', `/ojs/v1/jobs/${job.id}/progress`, {});
    expect(none.res.status).toBe(400);
    const badPercentage = await h.json('POST', '/ojs/v1/workers/progress', { job_id: job.id, percentage: 'lots' });
    expect(badPercentage.res.status).toBe(400);
    const noJob = await h.json('POST', '/ojs/v1/workers/progress', { percentage: 5 });
    expect(noJob.res.status).toBe(400);
    expect(noJob.body.error.details.field).toBe('job_id');
  });
});

describeEachBackend('workers', (backend) => {
  const h = useHarness(backend);

  it('FETCH: nothing available is 200 {"jobs":[]}; jobs come active with `job` = jobs[0]', async () => {
    const q = queueName();
    const empty = await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q] });
    expect(empty.res.status).toBe(200);
    expect(empty.body).toEqual({ jobs: [] });
    await push(h, q);
    await push(h, q);
    const { body } = await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 5, worker_id: 'w9' });
    expect(body.jobs).toHaveLength(2);
    expect(body.job).toEqual(body.jobs[0]);
    expect(body.jobs[0]).toMatchObject({ state: 'active', attempt: 1, worker_id: 'w9' });
  });

  it('ACK: 200 with acknowledged, ids, completed_at and the job', async () => {
    const q = queueName();
    const job = await push(h, q);
    await claim(h, q);
    const { res, body } = await h.json('POST', '/ojs/v1/workers/ack', { job_id: job.id, result: { total: 3 }, worker_id: 'w1' });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ acknowledged: true, id: job.id, job_id: job.id, state: 'completed', job: { result: { total: 3 } } });
    expect(body.completed_at).toBeDefined();
    expect((await h.json('POST', '/ojs/v1/workers/ack', {})).res.status).toBe(400);
  });

  it('ACK batch (extension): per-item results, failures do not fail the others', async () => {
    const q = queueName();
    const a = await push(h, q);
    const b = await push(h, q);
    await h.json('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 2, worker_id: 'w1' });
    const { res, body } = await h.json('POST', '/ojs/v1/workers/ack/batch', {
      acks: [{ job_id: a.id, result: 1 }, { job_id: '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f' }, { job_id: b.id }, { job_id: a.id }],
    });
    expect(res.status).toBe(200);
    expect(body.results.map((r: any) => r.ok)).toEqual([true, false, true, false]);
    expect(body.results[1].error.code).toBe('not_found');
    expect(body.results[3].error.code).toBe('conflict');
    expect((await stored(h, a.id)).state).toBe('completed');
    expect((await stored(h, b.id)).state).toBe('completed');
  });

  it('NACK: retryable with next_attempt_at and retry_delay_ms; requeue back to available', async () => {
    const q = queueName();
    const job = await push(h, q);
    await claim(h, q);
    const { res, body } = await h.json('POST', '/ojs/v1/workers/nack', { job_id: job.id, error: { code: 'e1', message: 'boom', type: 'x.Err' } });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ id: job.id, job_id: job.id, state: 'retryable', attempt: 1, max_attempts: 3 });
    expect(body.next_attempt_at).toBeDefined();
    expect(Number.isInteger(body.retry_delay_ms)).toBe(true);
    const other = await push(h, q);
    await claim(h, q);
    const requeued = await h.json('POST', '/ojs/v1/workers/nack', { job_id: other.id, requeue: true });
    expect(requeued.body.state).toBe('available');
  });

  it('HEARTBEAT: extends active jobs and returns the directive; 400 without worker_id', async () => {
    const q = queueName();
    const job = await push(h, q);
    await claim(h, q);
    const { res, body } = await h.json('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w1', active_jobs: [job.id, '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f'] });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ state: 'running', directive: 'running', jobs_extended: [job.id] });
    expect(body.server_time).toBeDefined();
    const missing = await h.json('POST', '/ojs/v1/workers/heartbeat', { active_jobs: 2 });
    expect(missing.res.status).toBe(400);
  });

  it('a draining gateway hands out no work but still takes ACKs', async () => {
    const d = await testHarness(backend);
    const q = queueName();
    const held = await push(d, q);
    await claim(d, q);
    await push(d, q);
    d.gateway.drain();
    expect((await d.json('POST', '/ojs/v1/workers/fetch', { queues: [q] })).body).toEqual({ jobs: [] });
    expect((await d.json('POST', '/ojs/v1/workers/ack', { job_id: held.id })).res.status).toBe(200);
    expect((await d.json('GET', '/ready')).res.status).toBe(503);
  });
});
