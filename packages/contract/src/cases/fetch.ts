/** FETCH: response shape, priority then FIFO, multi-queue order, paused queues, count, long-poll, request validation. */
import { expect } from 'vitest';
import type { OjsEvent } from '@ojskit/core';
import type { Suite } from '../harness.js';
import type { CaseContext } from '../context.js';
import { expectOjsError } from '../support/errors.js';

export function registerFetchCases(suite: Suite): void {
  suite.group('fetch', () => {
    suite.test('fetch.shape', 'a claimed job is active with attempt 1, started_at, worker_id; `job` mirrors jobs[0]', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      t.clock.advance(1_234);
      const res = await t.api.fetch({ queues: [queue], worker_id: 'w-1' });
      expect(res.jobs).toHaveLength(1);
      expect(res.job).toEqual(res.jobs[0]);
      expect(res.jobs[0]).toMatchObject({ id: job.id, state: 'active', attempt: 1, worker_id: 'w-1', started_at: t.iso() });
      expect(await t.job(job.id)).toMatchObject({ state: 'active', attempt: 1, worker_id: 'w-1', started_at: t.iso() });
    });

    suite.test('fetch.empty', 'nothing available → {"jobs":[]} without a `job` key', async (t) => {
      const res = await t.api.fetch({ queues: [t.queue()] });
      expect(res.jobs).toEqual([]);
      expect(res.job).toBeUndefined();
    });

    suite.test(
      'fetch.long-poll-wakes',
      'a fetch with wait_ms on an empty queue answers with a job enqueued while it waits, before its wait ends',
      async (t) => {
        const queue = t.queue();
        const started = performance.now();
        const fetching = t.api.fetch({ queues: [queue], wait_ms: 8_000, worker_id: 'w-poll' });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const job = await t.push(queue);
        const res = await fetching;
        expect(res.jobs.map((j) => j.id)).toEqual([job.id]);
        expect(res.jobs[0]).toMatchObject({ state: 'active', worker_id: 'w-poll' });
        // Woken by the enqueue, not by the end of its 8 s wait (a passing run takes milliseconds; the margin is
        // for a loaded machine).
        expect(performance.now() - started).toBeLessThan(6_000);
      },
    );

    suite.test(
      'fetch.long-poll-claims-behind-insert',
      'on a driver declaring orderedCalls, a waiting fetch claims a job enqueued in the same engine right behind its insert, before the job.enqueued event is emitted',
      async (t) => {
        if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
        if (t.driver.capabilities.orderedCalls !== true)
          throw new Error('this case needs a driver declaring capabilities.orderedCalls; skip it with a reason otherwise');
        const driver = t.driver;
        const queue = t.queue();
        const order: string[] = [];
        // What the engine emits reaches its transport's publish (when it has one) or its subscribers, as it emits.
        const unsubscribe = t.api.subscribe({ types: ['job.enqueued'], queues: [queue] }, () => order.push('emitted'));
        const transport = driver.events as { publish: (events: readonly OjsEvent[], tx?: unknown) => unknown } | undefined;
        const publish = transport?.publish;
        if (transport && publish) {
          transport.publish = (events, tx) => {
            if (events.some((e) => e.type === 'job.enqueued' && e.data['queue'] === queue)) order.push('emitted');
            return publish.call(transport, events, tx);
          };
        }
        const claim = driver.jobClaim;
        driver.jobClaim = (params) => {
          if (params.queues.includes(queue)) order.push('claim');
          return claim.call(driver, params);
        };
        try {
          const fetching = t.api.fetch({ queues: [queue], wait_ms: 2_000, worker_id: 'w-behind' });
          await new Promise((resolve) => setTimeout(resolve, 50));
          const job = await t.push(queue);
          const res = await fetching;
          expect(res.jobs.map((j) => j.id)).toEqual([job.id]);
          // The empty claim before the wait, then the claim woken by the insert, ahead of the event.
          expect(order.slice(0, 3)).toEqual(['claim', 'claim', 'emitted']);
        } finally {
          driver.jobClaim = claim;
          if (transport && publish) transport.publish = publish;
          unsubscribe();
        }
      },
    );

    suite.test(
      'fetch.claims-behind-insert-during-first-claim',
      "on a driver declaring orderedCalls, a job enqueued in the same engine while a waiting fetch's first claim is still out is claimed by a claim sent right behind its insert, not after that first claim answers",
      async (t) => {
        if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
        if (t.driver.capabilities.orderedCalls !== true)
          throw new Error('this case needs a driver declaring capabilities.orderedCalls; skip it with a reason otherwise');
        const queue = t.queue();
        const first = holdFirstClaim(t.driver, queue);
        try {
          const fetching = t.api.fetch({ queues: [queue], count: 5, wait_ms: 2_000, worker_id: 'w-first-out' });
          while (first.issued.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
          const job = await t.push(queue);
          // the second claim went out before the first answered, asking for the one job inserted
          expect(first.issued).toEqual([5, 1]);
          first.release();
          const res = await fetching;
          expect(res.jobs.map((j) => j.id)).toEqual([job.id]);
          expect(await t.job(job.id)).toMatchObject({ state: 'active', attempt: 1, worker_id: 'w-first-out' });
        } finally {
          first.restore();
        }
      },
    );

    suite.test(
      'fetch.behind-claim-surplus-requeued',
      'when both claims of such a fetch bring jobs, more than its count, the surplus goes back to available with its attempt restored (job.requeued)',
      async (t) => {
        if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
        if (t.driver.capabilities.orderedCalls !== true)
          throw new Error('this case needs a driver declaring capabilities.orderedCalls; skip it with a reason otherwise');
        const queue = t.queue();
        const waiting = await t.push(queue);
        const requeued: string[] = [];
        const unsubscribe = t.api.subscribe({ types: ['job.requeued'], queues: [queue] }, (e) => requeued.push(String(e.data['job_id'] ?? e.subject)));
        const first = holdFirstClaim(t.driver, queue);
        try {
          const fetching = t.api.fetch({ queues: [queue], count: 1, wait_ms: 2_000, worker_id: 'w-surplus' });
          while (first.issued.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
          const late = await t.push(queue);
          first.release();
          const res = await fetching;
          // the first claim ran before the insert: it took the job queued before; the second took the new one
          expect(res.jobs.map((j) => j.id)).toEqual([waiting.id]);
          expect(first.issued).toEqual([1, 1]);
          expect(await t.job(late.id)).toMatchObject({ state: 'available', attempt: 0 });
          expect((await t.job(late.id)).worker_id).toBeUndefined();
          await expect.poll(() => requeued).toEqual([late.id]);
          first.restore();
          const next = await t.api.fetch({ queues: [queue], worker_id: 'w-next' });
          expect(next.jobs.map((j) => [j.id, j.attempt])).toEqual([[late.id, 1]]);
        } finally {
          first.restore();
          unsubscribe();
        }
      },
    );

    suite.test('fetch.long-poll-abort', 'an aborted long-poll answers with no jobs at once and claims nothing enqueued after the abort', async (t) => {
      const queue = t.queue();
      const controller = new AbortController();
      const started = performance.now();
      const fetching = t.api.fetch({ queues: [queue], wait_ms: 8_000, worker_id: 'w-gone' }, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      const res = await fetching;
      expect(res.jobs).toEqual([]);
      // Answered at the abort, not at the end of its 8 s wait (the margin is for a loaded machine).
      expect(performance.now() - started).toBeLessThan(6_000);
      const job = await t.push(queue);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await t.expectReady(job.id);
    });

    suite.test('fetch.validation', 'missing or empty queues, or count < 1 → 400 invalid_request', async (t) => {
      for (const body of [{}, { queues: [] }, { queues: 'q' }, { queues: [t.queue()], count: 0 }, null]) {
        await expectOjsError(t.api.fetch(body), { code: 'invalid_request' });
      }
    });

    suite.test('fetch.priority', 'higher priority first, FIFO among equals', async (t) => {
      const queue = t.queue();
      const low = await t.push(queue, { options: { priority: -10 } });
      const midA = await t.push(queue);
      const high = await t.push(queue, { options: { priority: 10 } });
      const midB = await t.push(queue);
      const top = await t.push(queue, { options: { priority: 100 } });
      const midC = await t.push(queue, { options: { priority: 0 } });
      expect(await t.claimIds([queue], 6)).toEqual([top.id, high.id, midA.id, midB.id, midC.id, low.id]);
    });

    suite.test('fetch.fifo-same-millisecond', 'FIFO holds for jobs enqueued in the same millisecond', async (t) => {
      const queue = t.queue();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await t.push(queue, { args: [i] })).id);
      const claimed: string[] = [];
      for (let i = 0; i < 20; i++) claimed.push(...(await t.claimIds([queue], 1)));
      expect(claimed).toEqual(ids);
    });

    suite.test('fetch.multi-queue-order', 'queues are served left to right; count fills from the first, then the next', async (t) => {
      const [a, b] = [t.queue(), t.queue()];
      const b1 = await t.push(b, { options: { priority: 50 } });
      const a1 = await t.push(a);
      const a2 = await t.push(a);
      const b2 = await t.push(b);
      expect(await t.claimIds([a, b], 1)).toEqual([a1.id]);
      expect(await t.claimIds([a, b], 3)).toEqual([a2.id, b1.id, b2.id]);
      const c = await t.push(a);
      const d = await t.push(b);
      expect(await t.claimIds([b, a], 2)).toEqual([d.id, c.id]);
    });

    suite.test('fetch.paused-skipped', 'a paused queue is skipped; the next queue serves', async (t) => {
      const [a, b] = [t.queue(), t.queue()];
      const inA = await t.push(a);
      const inB = await t.push(b);
      await t.api.pauseQueue(a);
      expect(await t.claimIds([a, b], 2)).toEqual([inB.id]);
      await t.expectReady(inA.id);
      await t.api.resumeQueue(a);
      expect(await t.claimIds([a, b], 2)).toEqual([inA.id]);
    });

    suite.test('fetch.count', 'count bounds the number of jobs returned; default 1', async (t) => {
      const queue = t.queue();
      for (let i = 0; i < 15; i++) await t.push(queue, { args: [i] });
      expect(await t.claimIds([queue])).toHaveLength(1);
      expect(await t.claimIds([queue], 4)).toHaveLength(4);
      expect(await t.claimIds([queue], 10)).toHaveLength(10);
      expect(await t.claimIds([queue], 10)).toHaveLength(0);
    });

    suite.test('fetch.scheduled-not-early', 'a scheduled job is never claimed before scheduled_at, and is claimable at it', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { scheduled_at: '+PT10S' } });
      t.clock.advance(9_999);
      expect(await t.claimIds([queue])).toEqual([]);
      await t.maintenance();
      expect(await t.claimIds([queue])).toEqual([]);
      t.clock.advance(1);
      // FETCH promotes due jobs itself: no maintenance run needed.
      expect(await t.claimIds([queue])).toEqual([job.id]);
    });

    suite.test('fetch.requeued-goes-last', 'a requeued job takes a new FIFO position and keeps its priority', async (t) => {
      const queue = t.queue();
      const first = await t.push(queue);
      const second = await t.push(queue);
      const vip = await t.push(queue, { options: { priority: 5 } });
      expect(await t.claimIds([queue])).toEqual([vip.id]);
      expect(await t.claimIds([queue])).toEqual([first.id]);
      await t.api.nack({ job_id: first.id, requeue: true });
      await t.api.nack({ job_id: vip.id, requeue: true });
      expect(await t.claimIds([queue], 3)).toEqual([vip.id, second.id, first.id]);
    });

    suite.test('fetch.exclusive', 'a claimed job is not returned again by later FETCHes', async (t) => {
      const queue = t.queue();
      for (let i = 0; i < 6; i++) await t.push(queue);
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++)
        for (const id of await t.claimIds([queue], 2)) {
          expect(seen.has(id), `job ${id} claimed twice`).toBe(false);
          seen.add(id);
        }
      expect(seen.size).toBe(6);
    });
  });
}

/**
 * Holds the answer of the first claim a driver gets for `queue` (the claim itself runs at once, so an insert
 * issued meanwhile runs after it), until `release()`; `issued` lists each claim's limit; `restore()` puts the
 * driver's own method back.
 */
function holdFirstClaim(driver: NonNullable<CaseContext['driver']>, queue: string): { issued: number[]; release: () => void; restore: () => void } {
  const claim = driver.jobClaim;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const issued: number[] = [];
  driver.jobClaim = async (params) => {
    if (!params.queues.includes(queue)) return claim.call(driver, params);
    issued.push(params.limit);
    const answer = claim.call(driver, params);
    if (issued.length === 1) await held;
    return answer;
  };
  return {
    issued,
    release,
    restore: () => {
      release();
      driver.jobClaim = claim;
    },
  };
}
