/** Dead-letter queue: membership, listing and filters, get, retry (single and bulk), delete, stats. */
import { expect } from 'vitest';
import type { Job } from '@ojskit/core';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO, intoPlainDiscarded } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

async function deadLetter(t: CaseContext, queue: string, type = 'contract.job', errorType = 'BoomError'): Promise<Job> {
  const job = await t.push(queue, { type, options: { retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } } });
  const [claimed] = (await t.api.fetch({ queues: [queue] })).jobs;
  expect(claimed?.id).toBe(job.id);
  await t.api.nack({ job_id: job.id, error: { code: 'handler_error', type: errorType, message: 'dead' } });
  return t.job(job.id);
}

export function registerDeadLetterCases(suite: Suite): void {
  suite.group('dead letter', () => {
    suite.test('dead-letter.membership', 'only jobs exhausted under on_exhaustion:dead_letter are listed', async (t) => {
      const queue = t.queue();
      const dead = await deadLetter(t, queue);
      await intoPlainDiscarded(t, queue);
      const expired = await t.push(queue, { options: { expires_at: '+PT1S', retry: { on_exhaustion: 'dead_letter' } } });
      await INTO.cancelled(t, queue, { options: { retry: { on_exhaustion: 'dead_letter' } } });
      await t.advance(2_000);
      await t.expectState(expired.id, 'discarded');
      const list = await t.api.listDeadLetter({ queue });
      expect(list.jobs.map((j) => j.id)).toEqual([dead.id]);
      expect(list.pagination).toMatchObject({ total: 1, has_more: false });
    });

    suite.test('dead-letter.full-envelope', 'entries keep the full envelope and error history', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, {
        args: [{ to: 'x' }],
        meta: { m: 1 },
        x_extra: 'kept',
        options: { retry: { max_attempts: 2, initial_interval: 'PT1S', jitter: false, on_exhaustion: 'dead_letter' } },
      });
      for (let i = 0; i < 2; i++) {
        await t.claim(queue);
        await t.api.nack({ job_id: job.id, error: { code: 'e', message: `m${i}` } });
        await t.advance(1_000);
      }
      const [entry] = (await t.api.listDeadLetter({ queue })).jobs;
      expect(entry).toMatchObject({ id: job.id, state: 'discarded', args: [{ to: 'x' }], meta: { m: 1 }, x_extra: 'kept', attempt: 2 });
      expect(entry!.errors!.map((e) => e.message)).toEqual(['m0', 'm1']);
      expect((await t.api.getDeadLetter(job.id)).job).toEqual(entry);
    });

    suite.test('dead-letter.filters-and-pages', 'listing filters by queue and type and pages with limit/offset, newest first', async (t) => {
      const queue = t.queue();
      const a1 = await deadLetter(t, queue, 'dlq.alpha');
      t.clock.advance(1);
      const b1 = await deadLetter(t, queue, 'dlq.beta');
      t.clock.advance(1);
      const a2 = await deadLetter(t, queue, 'dlq.alpha');
      const alphas = await t.api.listDeadLetter({ queue, type: 'dlq.alpha' });
      expect(alphas.jobs.map((j) => j.id)).toEqual([a2.id, a1.id]);
      const page1 = await t.api.listDeadLetter({ queue, limit: 2, offset: 0 });
      expect(page1.jobs.map((j) => j.id)).toEqual([a2.id, b1.id]);
      expect(page1.pagination).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
      expect(page1.pagination.next_cursor).toBeTruthy();
      const page2 = await t.api.listDeadLetter({ queue, limit: 2, offset: 2 });
      expect(page2.jobs.map((j) => j.id)).toEqual([a1.id]);
      expect(page2.pagination).toMatchObject({ total: 3, has_more: false });
      expect((await t.api.listDeadLetter({ queue: t.queue() })).jobs).toEqual([]);
    });

    suite.test('dead-letter.get', 'GET of a dead-lettered job returns it; of any other job → 404', async (t) => {
      const queue = t.queue();
      const dead = await deadLetter(t, queue);
      expect((await t.api.getDeadLetter(dead.id)).job).toEqual(dead);
      const plain = await intoPlainDiscarded(t, queue);
      await expectOjsError(t.api.getDeadLetter(plain.id), { code: 'not_found' });
      const alive = await t.push(queue);
      await expectOjsError(t.api.getDeadLetter(alive.id), { code: 'not_found' });
    });

    suite.test('dead-letter.retry', 'retry revives the job: available, attempt 0, failure fields cleared, out of the DLQ', async (t) => {
      const queue = t.queue();
      const dead = await deadLetter(t, queue);
      t.clock.advance(10);
      const res = await t.api.retryDeadLetter(dead.id);
      expect(res.job).toMatchObject({
        id: dead.id,
        state: 'available',
        attempt: 0,
        enqueued_at: t.iso(),
        queue,
        max_attempts: dead.max_attempts,
        retry: dead.retry,
      });
      for (const cleared of ['completed_at', 'discarded_at', 'started_at', 'error', 'retry_delay_ms', 'next_attempt_at', 'worker_id']) {
        expect(res.job, `'${cleared}' must be cleared`).not.toHaveProperty(cleared);
      }
      expect(await t.expectReady(dead.id)).toMatchObject({ attempt: 0 });
      await expectOjsError(t.api.getDeadLetter(dead.id), { code: 'not_found' });
      await expectOjsError(t.api.retryDeadLetter(dead.id), { code: 'not_found' });
      expect((await t.claim(queue)).attempt).toBe(1);
    });

    suite.test('dead-letter.retry-keeps-history', 'a revived job keeps its errors history', async (t) => {
      const dead = await deadLetter(t, t.queue());
      const res = await t.api.retryDeadLetter(dead.id);
      expect(res.job.errors).toEqual(dead.errors);
    });

    suite.test('dead-letter.retry-not-member', 'retry of a discarded job outside the DLQ → 404; the job is unchanged', async (t) => {
      const plain = await intoPlainDiscarded(t, t.queue());
      await expectOjsError(t.api.retryDeadLetter(plain.id), { code: 'not_found' });
      expect(await t.job(plain.id)).toEqual(plain);
    });

    suite.test('dead-letter.delete', 'delete removes the job entirely; a second delete → 404', async (t) => {
      const queue = t.queue();
      const dead = await deadLetter(t, queue);
      expect(await t.api.deleteDeadLetter(dead.id)).toEqual({ deleted: true, job_id: dead.id });
      await expectOjsError(t.api.getJob(dead.id), { code: 'not_found' });
      await expectOjsError(t.api.deleteDeadLetter(dead.id), { code: 'not_found' });
      const alive = await t.push(queue);
      await expectOjsError(t.api.deleteDeadLetter(alive.id), { code: 'not_found' });
      await t.expectReady(alive.id);
    });

    suite.test('dead-letter.bulk-retry', 'bulk retry revives the matching entries only', async (t) => {
      const queue = t.queue();
      const other = t.queue();
      const mine = [await deadLetter(t, queue, 'dlq.bulk'), await deadLetter(t, queue, 'dlq.bulk'), await deadLetter(t, queue, 'dlq.keep')];
      const elsewhere = await deadLetter(t, other, 'dlq.bulk');
      const res = await t.api.retryDeadLetterBulk({ filter: { queue, type: 'dlq.bulk' }, confirm: true });
      expect(res).toMatchObject({ action: 'retry', matched: 2, succeeded: 2, failed: 0 });
      await t.expectReady(mine[0]!.id);
      await t.expectReady(mine[1]!.id);
      await t.expectState(mine[2]!.id, 'discarded');
      await t.expectState(elsewhere.id, 'discarded');
    });

    suite.test('dead-letter.bulk-confirm', 'bulk retry without confirm:true → 400 and nothing changes', async (t) => {
      const queue = t.queue();
      const dead = await deadLetter(t, queue);
      for (const body of [{ filter: { queue } }, { filter: { queue }, confirm: false }]) {
        await expectOjsError(t.api.retryDeadLetterBulk(body), { code: 'invalid_request' });
      }
      await t.expectState(dead.id, 'discarded');
    });

    suite.test('dead-letter.stats', 'stats count entries by queue and error type with oldest/newest times', async (t) => {
      const queue = t.queue();
      const first = await deadLetter(t, queue, 'contract.job', 'AlphaError');
      t.clock.advance(1_000);
      await deadLetter(t, queue, 'contract.job', 'AlphaError');
      t.clock.advance(1_000);
      const last = await deadLetter(t, queue, 'contract.job', 'BetaError');
      const stats = await t.api.deadLetterStats();
      expect(stats.by_queue[queue]).toBe(3);
      expect(stats.total).toBeGreaterThanOrEqual(3);
      expect(stats.by_error_type.AlphaError).toBeGreaterThanOrEqual(2);
      expect(stats.by_error_type.BetaError).toBeGreaterThanOrEqual(1);
      expect(Date.parse(stats.oldest_at!)).toBeLessThanOrEqual(Date.parse(first.discarded_at!));
      expect(Date.parse(stats.newest_at!)).toBeGreaterThanOrEqual(Date.parse(last.discarded_at!));
    });
  });
}
