/** Bulk operations: enqueue with per-item results (partial or atomic), cancel/retry/delete by ids or filter. */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

const JOB = (queue: string, extra: Record<string, unknown> = {}) => ({ type: 'contract.job', args: [], options: { queue, ...extra } });

export function registerBulkCases(suite: Suite): void {
  suite.group('bulk', () => {
    suite.test('bulk.enqueue-partial', 'partial bulk enqueue stores the valid items and reports each one', async (t) => {
      const queue = t.queue();
      const res = await t.api.enqueueBulk({ jobs: [JOB(queue), { type: '', args: [] }, JOB(queue, { priority: 500 }), JOB(queue)] });
      expect(res).toMatchObject({ atomicity: 'partial', total: 4, succeeded: 2, failed: 2 });
      expect(res.items.map((i) => [i.index, i.status])).toEqual([
        [0, 'created'],
        [1, 'failed'],
        [2, 'failed'],
        [3, 'created'],
      ]);
      expect(res.items[1]).toMatchObject({ status: 'failed', error: { code: 'invalid_request' } });
      const created = res.items.flatMap((i) => (i.status === 'created' ? [i.job.id] : []));
      expect(await t.claimIds([queue], 10)).toEqual(created);
    });

    suite.test('bulk.enqueue-duplicates', 'a clash with a stored job fails that item only; a unique ignore answers duplicate', async (t) => {
      const queue = t.queue();
      const stored = await t.push(queue);
      const unique = { unique: { keys: ['type', 'args'], on_conflict: 'ignore' } };
      const first = await t.api.enqueue({ type: 'contract.job', args: [1], options: { queue, ...unique } });
      const res = await t.api.enqueueBulk({
        jobs: [{ ...JOB(queue), id: stored.id }, JOB(queue), { type: 'contract.job', args: [1], options: { queue, ...unique } }],
      });
      expect(res.items.map((i) => i.status)).toEqual(['failed', 'created', 'duplicate']);
      expect(res.items[0]).toMatchObject({ error: { code: 'duplicate' } });
      expect(res.items[2]).toMatchObject({ job: { id: first.job.id } });
    });

    suite.test('bulk.enqueue-atomic', 'atomic bulk enqueue stores all or nothing; a refusal names the item (422)', async (t) => {
      const queue = t.queue();
      const error = await expectOjsError(t.api.enqueueBulk({ atomicity: 'atomic', jobs: [JOB(queue), { type: 'Bad Type', args: [] }] }), {
        code: 'invalid_request',
        status: 422,
        details: { index: 1, atomicity: 'atomic' },
      });
      expect(error.details?.items).toEqual([expect.objectContaining({ index: 1, status: 'failed' })]);
      expect((await t.api.queueStats(queue)).stats.depth).toBe(0);
      const ok = await t.api.enqueueBulk({ atomicity: 'atomic', jobs: [JOB(queue), JOB(queue)] });
      expect(ok).toMatchObject({ atomicity: 'atomic', total: 2, succeeded: 2, failed: 0 });
    });

    suite.test('bulk.enqueue-invalid', 'a malformed bulk request, or one whose every item fails, is refused', async (t) => {
      await expectOjsError(t.api.enqueueBulk({ jobs: [] }), { code: 'invalid_request', details: { field: 'jobs' } });
      await expectOjsError(t.api.enqueueBulk({ jobs: [JOB(t.queue())], atomicity: 'some' }), { code: 'invalid_request', details: { field: 'atomicity' } });
      await expectOjsError(t.api.enqueueBulk({ jobs: [JOB(t.queue())], idempotency_key: 'k' }), { code: 'unsupported' });
      const all = await expectOjsError(t.api.enqueueBulk({ jobs: [{ type: '' }, { args: [] }] }), { code: 'x_bulk_failed', status: 422 });
      expect(all.details).toMatchObject({ total: 2, failed: 2 });
    });

    suite.test('bulk.cancel', 'bulk cancel by ids cancels what it can and skips finished jobs; by filter it needs confirm', async (t) => {
      const queue = t.queue();
      const [a, b, c] = [await t.push(queue), await t.push(queue), await t.push(queue, { options: { scheduled_at: '+PT1H' } })];
      await t.api.cancelJob(b.id);
      const res = await t.api.bulkJobs('cancel', { job_ids: [a.id, b.id, 'nope'] });
      expect(res).toMatchObject({ action: 'cancel', total_matched: 3, succeeded: 1, skipped: 1, failed: 1 });
      expect(res.items.map((i) => i.status)).toEqual(['cancelled', 'skipped', 'failed']);
      await t.expectState(a.id, 'cancelled');
      await expectOjsError(t.api.bulkJobs('cancel', { filter: { queue } }), { code: 'invalid_request', details: { field: 'confirm' } });
      await expectOjsError(t.api.bulkJobs('cancel', { filter: { queue }, job_ids: [a.id], confirm: true }), { code: 'invalid_request' });
      const byFilter = await t.api.bulkJobs('cancel', { filter: { queue }, confirm: true });
      expect(byFilter.items.map((i) => [i.job_id, i.status])).toEqual([[c.id, 'cancelled']]);
    });

    suite.test('bulk.retry-delete', 'bulk retry revives discarded jobs; bulk delete removes finished jobs only', async (t) => {
      const queue = t.queue();
      const failing = await t.push(queue, { options: { retry: { max_attempts: 1 } } });
      const waiting = await t.push(queue);
      await t.claim(queue);
      await t.api.nack({ job_id: failing.id, error: { code: 'boom', message: 'boom' } });
      const retried = await t.api.bulkJobs('retry', { job_ids: [failing.id, waiting.id] });
      expect(retried.items.map((i) => i.status)).toEqual(['retried', 'failed']);
      expect(retried.items[1]).toMatchObject({ error: { code: 'conflict' } });
      await t.expectReady(failing.id);
      await t.api.cancelJob(failing.id);
      const deleted = await t.api.bulkJobs('delete', { job_ids: [failing.id, waiting.id] });
      expect(deleted.items.map((i) => i.status)).toEqual(['deleted', 'failed']);
      await expectOjsError(t.api.getJob(failing.id), { code: 'not_found' });
      await t.expectReady(waiting.id);
    });

    suite.test('bulk.admin', 'admin bulk actions act on a filter, need confirm, and count what they did', async (t) => {
      const queue = t.queue();
      const jobs = [await t.push(queue), await t.push(queue), await t.push(queue)];
      await expectOjsError(t.api.adminBulk('cancel', { filter: { queue } }), { code: 'invalid_request', details: { field: 'confirm' } });
      expect(await t.api.adminBulk('cancel', { filter: { queue }, confirm: true })).toEqual({ action: 'cancel', matched: 3, succeeded: 3, failed: 0 });
      for (const job of jobs) await t.expectState(job.id, 'cancelled');
      expect(await t.api.adminBulk('retry', { filter: { queue, state: 'cancelled' }, confirm: true })).toMatchObject({
        action: 'retry',
        matched: 3,
        succeeded: 0,
        failed: 3,
      });
      expect(await t.api.adminBulk('delete', { filter: { queue }, confirm: true })).toEqual({ action: 'delete', matched: 3, succeeded: 3, failed: 0 });
      expect((await t.api.listJobs({ queue })).pagination.total).toBe(0);
      await expectOjsError(t.api.adminBulk('delete', { filter: { state: 'nope' }, confirm: true }), {
        code: 'invalid_request',
        details: { field: 'filter.state' },
      });
    });
  });
}
