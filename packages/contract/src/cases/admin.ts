/** Admin API: workers and their directives, stats with worker counts, job listing with filters and pages. */
import { expect } from 'vitest';
import type { AdminWorker, OjsApi } from '@ojskit/core';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

/** Finds a worker in the (possibly shared, paged) worker list. */
async function findWorker(api: OjsApi, id: string): Promise<AdminWorker | undefined> {
  for (let page = 1; ; page++) {
    const list = await api.listWorkers({ page, per_page: 100 });
    const found = list.items.find((w) => w.id === id);
    if (found || list.items.length < 100) return found;
  }
}

export function registerAdminCases(suite: Suite): void {
  suite.group('admin', () => {
    suite.test('admin.workers', 'workers are listed with state, directive, active jobs, last heartbeat and staleness', async (t) => {
      const queue = t.queue();
      const worker = `w-${t.uniqueName()}`;
      const job = await t.push(queue);
      await t.claim(queue, { worker_id: worker });
      await t.api.heartbeat({ worker_id: worker, active_job_ids: [job.id], hostname: 'host-1', pid: 42, queues: [queue], concurrency: 3 });
      expect(await findWorker(t.api, worker)).toMatchObject({
        id: worker,
        state: 'running',
        directive: 'running',
        active_jobs: 1,
        active_job_ids: [job.id],
        last_heartbeat_at: t.iso(),
        stale: false,
        hostname: 'host-1',
        pid: 42,
        queues: [queue],
        concurrency: 3,
      });
      const list = await t.api.listWorkers();
      expect(list.summary.total).toBeGreaterThanOrEqual(1);
      expect(list.summary.total).toBe(list.summary.running + list.summary.quiet + list.summary.terminate + list.summary.stale);
      expect(list.pagination).toMatchObject({ page: 1, per_page: 25 });
      // silent past the worker-death time (30 s by default): stale
      t.clock.advance(31_000);
      expect(await findWorker(t.api, worker)).toMatchObject({ stale: true });
      expect((await t.api.listWorkers()).summary.stale).toBeGreaterThanOrEqual(1);
    });

    suite.test('admin.worker-directives', 'quiet and terminate reach the worker on its next heartbeat and stick', async (t) => {
      const worker = `w-${t.uniqueName()}`;
      expect(await t.api.heartbeat({ worker_id: worker })).toMatchObject({ state: 'running', directive: 'running' });
      expect(await t.api.setWorkerDirective(worker, 'quiet')).toEqual({ worker_id: worker, state: 'quiet', directive: 'quiet' });
      expect(await t.api.heartbeat({ worker_id: worker, state: 'running' })).toMatchObject({ state: 'quiet', directive: 'quiet' });
      expect(await t.api.heartbeat({ worker_id: worker, state: 'quiet' })).toMatchObject({ state: 'quiet' });
      expect(await findWorker(t.api, worker)).toMatchObject({ state: 'quiet', directive: 'quiet' });
      await t.api.setWorkerDirective(worker, 'terminate');
      expect(await t.api.heartbeat({ worker_id: worker })).toMatchObject({ state: 'terminate', directive: 'terminate' });
      // a worker not seen yet gets the directive on its first heartbeat
      const later = `w-${t.uniqueName()}`;
      await t.api.setWorkerDirective(later, 'quiet');
      expect(await t.api.heartbeat({ worker_id: later })).toMatchObject({ state: 'quiet' });
    });

    suite.test('admin.quiet-worker-fetch', 'a quiet or terminated worker gets no jobs from FETCH (after the wait it asked for); others still do', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      const quiet = `w-${t.uniqueName()}`;
      await t.api.heartbeat({ worker_id: quiet });
      await t.api.setWorkerDirective(quiet, 'quiet');
      expect((await t.api.fetch({ queues: [queue], worker_id: quiet })).jobs).toEqual([]);
      expect((await t.api.fetch({ queues: [queue], worker_id: quiet, wait_ms: 20 })).jobs).toEqual([]);
      await t.expectReady(job.id);
      // told through its heartbeat's answer too: a terminated worker that heartbeats is refused as well
      const gone = `w-${t.uniqueName()}`;
      await t.api.setWorkerDirective(gone, 'terminate');
      expect(await t.api.heartbeat({ worker_id: gone })).toMatchObject({ directive: 'terminate' });
      expect((await t.api.fetch({ queues: [queue], worker_id: gone })).jobs).toEqual([]);
      const other = await t.api.fetch({ queues: [queue], worker_id: `w-${t.uniqueName()}` });
      expect(other.jobs.map((j) => j.id)).toEqual([job.id]);
    });

    suite.test('admin.stats', 'stats count queues, live workers (with a summary) and jobs per state', async (t) => {
      const queue = t.queue();
      await t.push(queue);
      await t.dispatch.settle();
      await t.api.heartbeat({ worker_id: `w-${t.uniqueName()}` });
      const stats = await t.api.adminStats();
      expect(stats.queues).toBeGreaterThanOrEqual(1);
      expect(stats.workers).toBeGreaterThanOrEqual(1);
      expect(stats.workers).toBe(stats.worker_summary.total - stats.worker_summary.stale);
      expect(stats.jobs[t.dispatch.ready]).toBeGreaterThanOrEqual(1);
      expect(stats.uptime_seconds).toBeGreaterThanOrEqual(0);
    });

    suite.test('admin.manifest', 'the manifest advertises the admin-api, backpressure, bulk-operations and graceful-shutdown extensions', async (t) => {
      const names = (await t.api.manifest()).extensions.official.map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining(['admin-api', 'backpressure', 'bulk-operations', 'graceful-shutdown']));
    });

    suite.test('admin.list-jobs', 'jobs are listed newest first, filtered by queue, state, type and creation time, paged', async (t) => {
      const queue = t.queue();
      const first = await t.push(queue);
      t.clock.advance(10_000);
      const second = (await t.api.enqueue({ type: 'contract.other', args: [], options: { queue } })).job;
      t.clock.advance(10_000);
      const third = await t.push(queue);
      await t.claim(queue); // the first: FIFO
      const all = await t.api.listJobs({ queue });
      expect(all.items.map((j) => j.id)).toEqual([third.id, second.id, first.id]);
      expect(all.pagination).toEqual({ total: 3, page: 1, per_page: 25 });
      await t.dispatch.settle();
      expect((await t.api.listJobs({ queue, state: t.dispatch.ready })).items.map((j) => j.id)).toEqual([third.id, second.id]);
      expect((await t.api.listJobs({ queue, type: 'contract.other' })).items.map((j) => j.id)).toEqual([second.id]);
      expect((await t.api.listJobs({ queue, since: second.created_at })).items.map((j) => j.id)).toEqual([third.id, second.id]);
      expect((await t.api.listJobs({ queue, until: second.created_at })).items.map((j) => j.id)).toEqual([second.id, first.id]);
      expect((await t.api.listJobs({ queue, since: second.created_at, until: second.created_at })).items.map((j) => j.id)).toEqual([second.id]);
      const page2 = await t.api.listJobs({ queue, page: 2, per_page: 1 });
      expect(page2).toEqual({ items: [expect.objectContaining({ id: second.id })], pagination: { total: 3, page: 2, per_page: 1 } });
      expect((await t.api.listJobs({ queue, per_page: 1_000 })).pagination.per_page).toBe(100);
    });

    suite.test('admin.list-jobs-invalid', 'bad filters and pages answer 400 invalid_request', async (t) => {
      await expectOjsError(t.api.listJobs({ state: 'bogus' }), { code: 'invalid_request', details: { field: 'state' } });
      await expectOjsError(t.api.listJobs({ since: 'yesterday' }), { code: 'invalid_request', details: { field: 'since' } });
      await expectOjsError(t.api.listJobs({ queue: 'Bad Queue!' }), { code: 'invalid_request', details: { field: 'queue' } });
      await expectOjsError(t.api.listJobs({ page: 0 }), { code: 'invalid_request', details: { field: 'page' } });
      await expectOjsError(t.api.setWorkerDirective('w', 'pause' as 'quiet'), { code: 'invalid_request' });
    });

    suite.test('admin.retry-job', 'retry revives a discarded job (attempts reset) and runs a retryable one now; others conflict', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { max_attempts: 1 } } });
      await t.claim(queue);
      await t.api.nack({ job_id: job.id, error: { code: 'boom', message: 'boom' } });
      await t.expectState(job.id, 'discarded');
      const revived = (await t.api.retryJob(job.id)).job;
      expect(revived).toMatchObject({ id: job.id, state: 'available', attempt: 0 });
      const flaky = await t.push(queue, { options: { retry: { max_attempts: 3, initial_interval: 'PT1H' } } });
      expect(await t.claimIds([queue], 2)).toEqual([job.id, flaky.id]);
      await t.api.nack({ job_id: flaky.id, error: { code: 'boom', message: 'boom' } });
      await t.expectState(flaky.id, 'retryable');
      expect((await t.api.retryJob(flaky.id)).job).toMatchObject({ state: 'available', attempt: 1 });
      expect(await t.claimIds([queue])).toEqual([flaky.id]);
      await expectOjsError(t.api.retryJob(flaky.id), { code: 'conflict', details: { current_state: 'active' } });
      await expectOjsError(t.api.retryJob('01970000-0000-7000-8000-000000000000'), { code: 'not_found' });
    });
  });
}
