/** Backpressure (backpressure extension): queue configuration, the depth bound checked atomically with the insert. */
import { expect } from 'vitest';
import type { OjsApi } from '@ojskit/core';
import type { Suite } from '../harness.js';
import { expectOjsError, settle } from '../support/errors.js';

const JOB = (queue: string, extra: Record<string, unknown> = {}) => ({ type: 'contract.job', args: [], options: { queue, ...extra } });

async function bound(api: OjsApi, queue: string, maxDepth: number, more: Record<string, unknown> = {}): Promise<void> {
  await api.setQueueConfig(queue, { backpressure: { max_depth: maxDepth, ...more } });
}

export function registerBackpressureCases(suite: Suite): void {
  suite.group('backpressure', () => {
    suite.test('backpressure.config', 'a queue config is stored and read back; a queue never configured reads the defaults', async (t) => {
      const queue = t.queue();
      // whether the queue's transitions are recorded: by default, wherever the backend records history
      const history = (await t.api.manifest()).capabilities['job_history'] === true;
      expect(await t.api.getQueueConfig(queue)).toEqual({
        queue,
        backpressure: { max_depth: null, strategy: 'reject', warning_threshold: 0.8, retry_after_seconds: 1 },
        concurrency: null,
        rate_limit: null,
        retention: {},
        age_boost: null,
        history,
        updated_at: null,
      });
      const set = await t.api.setQueueConfig(queue, {
        backpressure: { max_depth: 10, warning_threshold: 0.5, retry_after_seconds: 3 },
        concurrency: 4,
        retention: { completed_ms: 60_000 },
      });
      const expected = {
        queue,
        backpressure: { max_depth: 10, strategy: 'reject', warning_threshold: 0.5, retry_after_seconds: 3 },
        concurrency: 4,
        rate_limit: null,
        retention: { completed_ms: 60_000 },
        age_boost: null,
        history,
        updated_at: t.iso(),
      };
      expect(set).toEqual(expected);
      expect(await t.api.getQueueConfig(queue)).toEqual(expected);
      // the flat form, replacing everything; 0 is unbounded
      expect(await t.api.setQueueConfig(queue, { max_depth: 0 })).toMatchObject({ backpressure: { max_depth: null }, concurrency: null, retention: {} });
    });

    suite.test('backpressure.config-invalid', 'bad configurations are refused with the OJS error envelope', async (t) => {
      const queue = t.queue();
      await expectOjsError(t.api.setQueueConfig(queue, { backpressure: { max_depth: -1 } }), {
        code: 'invalid_request',
        details: { field: 'backpressure.max_depth' },
      });
      await expectOjsError(t.api.setQueueConfig(queue, { backpressure: { max_depth: 1.5 } }), { code: 'invalid_request' });
      await expectOjsError(t.api.setQueueConfig(queue, { backpressure: { warning_threshold: 2 } }), { code: 'invalid_request' });
      await expectOjsError(t.api.setQueueConfig(queue, { backpressure: 'big' }), { code: 'invalid_request', details: { field: 'backpressure' } });
      await expectOjsError(t.api.setQueueConfig(queue, { concurrency: 0 }), { code: 'invalid_request', details: { field: 'concurrency' } });
      await expectOjsError(t.api.setQueueConfig(queue, { retention: { forever: 1 } }), { code: 'invalid_request' });
      await expectOjsError(t.api.setQueueConfig(queue, { backpressure: { strategy: 'drop_oldest' } }), { code: 'unsupported' });
      await expectOjsError(t.api.setQueueConfig('Bad Queue!', { max_depth: 1 }), { code: 'invalid_request' });
      await expectOjsError(t.api.getQueueConfig('Bad Queue!'), { code: 'invalid_request' });
    });

    suite.test('backpressure.reject', 'over max_depth an enqueue is refused with 429 QUEUE_FULL; waiting jobs count, active ones do not', async (t) => {
      const queue = t.queue();
      await bound(t.api, queue, 2, { retry_after_seconds: 7 });
      await t.push(queue);
      await t.push(queue, { options: { scheduled_at: '+PT1H' } });
      const error = await expectOjsError(t.api.enqueue(JOB(queue)), {
        code: 'QUEUE_FULL',
        details: { queue, depth: 2, bound: 2, strategy: 'reject', retry_after_seconds: 7 },
      });
      expect(error.retryable).toBe(true);
      expect((await t.api.queueStats(queue)).stats.depth).toBe(2);
      // other queues are not bounded
      expect((await t.api.enqueue(JOB(t.queue()))).job.state).toBe('available');
      await t.claim(queue);
      expect((await t.api.enqueue(JOB(queue))).job.state).toBe('available');
      await expectOjsError(t.api.enqueue(JOB(queue)), { code: 'QUEUE_FULL', details: { depth: 2 } });
    });

    suite.test('backpressure.pressure', 'an accepted enqueue at or past the warning threshold reports the queue pressure', async (t) => {
      const queue = t.queue();
      await bound(t.api, queue, 5, { warning_threshold: 0.6 });
      expect((await t.api.enqueue(JOB(queue))).queue_pressure).toBeUndefined();
      expect((await t.api.enqueue(JOB(queue))).queue_pressure).toBeUndefined();
      expect((await t.api.enqueue(JOB(queue))).queue_pressure).toEqual({ queue, depth: 3, bound: 5, pressure: 0.6 });
      const batch = await t.api.enqueueBatch({ jobs: [JOB(queue), JOB(queue)] });
      expect(batch.queue_pressure).toEqual({ queue, depth: 5, bound: 5, pressure: 1 });
    });

    suite.test('backpressure.batch', 'a batch that does not fit is refused whole (429, details.index), nothing stored', async (t) => {
      const queue = t.queue();
      await bound(t.api, queue, 3);
      await expectOjsError(t.api.enqueueBatch({ jobs: [JOB(queue), JOB(queue), JOB(queue), JOB(queue)] }), {
        code: 'QUEUE_FULL',
        details: { queue, index: 3, depth: 3, bound: 3 },
      });
      expect((await t.api.queueStats(queue)).stats.depth).toBe(0);
      expect((await t.api.enqueueBatch({ jobs: [JOB(queue), JOB(queue), JOB(queue)] })).count).toBe(3);
    });

    suite.test('backpressure.bulk-partial', 'a partial bulk enqueue stores what fits and reports the rest as QUEUE_FULL items', async (t) => {
      const queue = t.queue();
      const other = t.queue();
      await bound(t.api, queue, 2);
      const res = await t.api.enqueueBulk({ jobs: [JOB(queue), JOB(queue), JOB(queue), JOB(other)] });
      expect(res).toMatchObject({ atomicity: 'partial', total: 4, succeeded: 3, failed: 1 });
      expect(res.items.map((i) => i.status)).toEqual(['created', 'created', 'failed', 'created']);
      expect(res.items[2]).toMatchObject({ index: 2, status: 'failed', error: { code: 'QUEUE_FULL', retryable: true } });
      expect((await t.api.queueStats(queue)).stats.depth).toBe(2);
    });

    suite.test('backpressure.concurrent', 'concurrent enqueuers never overshoot the bound', async (t) => {
      const queue = t.queue();
      await bound(t.api, queue, 5);
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => settle(t.api.enqueue(JOB(queue)))));
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(5);
      expect(outcomes.filter((o) => o !== 'ok' && o.code === 'QUEUE_FULL')).toHaveLength(15);
      const batches = await Promise.all(Array.from({ length: 4 }, () => settle(t.api.enqueueBatch({ jobs: [JOB(queue)] }))));
      expect(batches.every((o) => o !== 'ok' && o.code === 'QUEUE_FULL')).toBe(true);
      expect((await t.api.queueStats(queue)).stats.depth).toBe(5);
    });

    suite.test('backpressure.rejected-event', 'a refusal emits backpressure.rejected', async (t) => {
      const queue = t.queue();
      await bound(t.api, queue, 1);
      await t.push(queue);
      await expectOjsError(t.api.enqueue(JOB(queue)), { code: 'QUEUE_FULL' });
      const { events } = await t.api.pollEvents({ types: ['backpressure.rejected'], limit: 1000 });
      expect(events.filter((e) => e.subject === queue).map((e) => e.data)).toEqual([{ queue, depth: 1, bound: 1 }]);
    });
  });
}
