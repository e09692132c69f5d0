/**
 * Rate limits (semantics.md "Fetch selection"; spec/rate-limits.md): per-second spacing of a queue's limited
 * claims, concurrency per key across fetchers, keys independent, release on every way out of `active`,
 * the queue-level limit, validation, the manifest and the inspection route.
 *
 * Spacing is measured by the store's clock (Redis `TIME`, PostgreSQL `clock_timestamp()`, the engine's clock
 * in memory), so no case asserts a timed outcome: a refusal uses a spacing of many seconds, and an allowed
 * claim is waited for (the manual clock advanced and real time passing) with a generous deadline.
 */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import type { CaseContext } from '../context.js';
import { FIXED_RETRY } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

/** A spacing no loaded machine outlasts between two calls (5 s). */
const SLOW = { max_per_second: 0.2 };

function limited(rate_limit: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { options: { rate_limit, ...extra } } as Record<string, unknown>;
}

/** Claims from `queue` until `want` jobs came or `deadlineMs` passed; returns the size of each non-empty answer. */
async function drain(t: CaseContext, queue: string, want: number, stepMs: number, deadlineMs = 10_000): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  const until = Date.now() + deadlineMs;
  while (ids.length < want && Date.now() < until) {
    const got = await t.claimIds([queue], want);
    if (got.length > 0) sizes.push(got.length);
    ids.push(...got);
    if (ids.length < want) {
      t.clock.advance(stepMs);
      await new Promise((resolve) => setTimeout(resolve, stepMs + 5));
    }
  }
  return { ids, sizes };
}

export function registerRateLimitCases(suite: Suite): void {
  suite.group('rate-limit', () => {
    suite.test('rate-limit.manifest', 'the manifest says rate_limiting: true', async (t) => {
      expect((await t.api.manifest()).capabilities.rate_limiting).toBe(true);
    });

    suite.test('rate-limit.validation', 'bad rate limits answer 400 invalid_request naming the field; nothing is stored', async (t) => {
      const queue = t.queue();
      const bad: Array<[unknown, string]> = [
        [{ max_per_second: 0 }, 'options.rate_limit.max_per_second'],
        [{ max_per_second: -1 }, 'options.rate_limit.max_per_second'],
        [{ max_per_second: '5' }, 'options.rate_limit.max_per_second'],
        [{ concurrency: 1.5 }, 'options.rate_limit.concurrency'],
        [{ concurrency: 0 }, 'options.rate_limit.concurrency'],
        [{ concurrency: 1, key: '' }, 'options.rate_limit.key'],
        [{ concurrency: 1, key: 'k'.repeat(256) }, 'options.rate_limit.key'],
        [{ key: 'orphan' }, 'options.rate_limit.key'],
        [{ concurrency: 1, burst: 3 }, 'options.rate_limit.burst'],
        [{}, 'options.rate_limit'],
        ['fast', 'options.rate_limit'],
      ];
      for (const [rate_limit, field] of bad) {
        await expectOjsError(t.api.enqueue({ type: 'contract.job', args: [], options: { queue, rate_limit } }), {
          code: 'invalid_request',
          details: { field },
        });
      }
      await t.expectStats(queue, { available: 0 });
      await expectOjsError(t.api.setQueueConfig(queue, { rate_limit: { max_per_second: 0 } }), {
        code: 'invalid_request',
        details: { field: 'rate_limit.max_per_second' },
      });
      await expectOjsError(t.api.setQueueConfig(queue, { rate_limit: { concurrency: 2, key: 'x' } }), {
        code: 'invalid_request',
        details: { field: 'rate_limit.key' },
      });
      const ok = await t.push(queue, limited({ max_per_second: 2.5, concurrency: 3, key: 'k'.repeat(255) }));
      expect(ok.rate_limit).toEqual({ max_per_second: 2.5, concurrency: 3, key: 'k'.repeat(255) });
    });

    suite.test('rate-limit.per-second', 'max_per_second: one limited claim per 1000/n ms from the queue; the others stay available', async (t) => {
      const queue = t.queue();
      for (let i = 0; i < 3; i++) await t.push(queue, limited(SLOW));
      expect(await t.claimIds([queue], 3)).toHaveLength(1);
      expect(await t.claimIds([queue], 3)).toHaveLength(0);
      await t.expectStats(queue, { available: 2 });

      const fast = t.queue();
      for (let i = 0; i < 3; i++) await t.push(fast, limited({ max_per_second: 20 }));
      const { ids, sizes } = await drain(t, fast, 3, 50);
      expect(ids).toHaveLength(3);
      // every claim call is one instant: at most one limited claim in it
      expect(sizes.every((n) => n === 1)).toBe(true);
    });

    suite.test('rate-limit.unlimited-pass', 'jobs without a limit in the same queue are not held by a limited one', async (t) => {
      const queue = t.queue();
      const a = await t.push(queue, limited(SLOW));
      const b = await t.push(queue, limited(SLOW));
      const plain = await t.push(queue);
      expect(await t.claimIds([queue], 3)).toEqual([a.id, plain.id]);
      await t.expectReady(b.id);
    });

    suite.test('rate-limit.concurrency', 'concurrency k: at most k active jobs share the key across concurrent fetchers', async (t) => {
      const queue = t.queue();
      for (let i = 0; i < 6; i++) await t.push(queue, limited({ concurrency: 2, key: `${queue}-k` }));
      const [one, two] = await Promise.all([t.claimIds([queue], 6, { worker_id: 'w1' }), t.claimIds([queue], 6, { worker_id: 'w2' })]);
      expect(one.length + two.length).toBe(2);
      expect(await t.claimIds([queue], 6)).toHaveLength(0);
      await t.api.ack({ job_id: [...one, ...two][0]! });
      expect(await t.claimIds([queue], 6)).toHaveLength(1);
    });

    suite.test('rate-limit.default-key', 'without a key, concurrency counts the jobs of the queue that carry it', async (t) => {
      const queue = t.queue();
      for (let i = 0; i < 3; i++) await t.push(queue, limited({ concurrency: 1 }));
      expect(await t.claimIds([queue], 3)).toHaveLength(1);
      const stored = await t.push(queue, limited({ concurrency: 1 }));
      expect(stored.rate_limit).toEqual({ concurrency: 1 });
      expect(await t.claimIds([queue], 3)).toHaveLength(0);
    });

    suite.test('rate-limit.keys-independent', 'a job held by its key does not hold back jobs of another key behind it', async (t) => {
      const queue = t.queue();
      const a1 = await t.push(queue, limited({ concurrency: 1, key: `${queue}-a` }));
      const a2 = await t.push(queue, limited({ concurrency: 1, key: `${queue}-a` }));
      const b1 = await t.push(queue, limited({ concurrency: 1, key: `${queue}-b` }));
      const plain = await t.push(queue);
      expect(await t.claimIds([queue], 1)).toEqual([a1.id]);
      expect(await t.claimIds([queue], 1)).toEqual([b1.id]);
      expect(await t.claimIds([queue], 5)).toEqual([plain.id]);
      expect(await t.claimIds([queue], 5)).toEqual([]);
      await t.expectReady(a2.id);
    });

    suite.test('rate-limit.release', "the key's slot is released on ack, nack, cancel and rescue", async (t) => {
      const queue = t.queue();
      const key = `${queue}-k`;
      const jobs = [];
      for (let i = 0; i < 5; i++) {
        jobs.push(await t.push(queue, limited({ concurrency: 1, key }, { retry: { ...FIXED_RETRY, max_attempts: 1 }, visibility_timeout_ms: 1_000 })));
      }
      const next = async (): Promise<string> => {
        const ids = await t.claimIds([queue], 5);
        expect(ids).toHaveLength(1);
        expect(await t.claimIds([queue], 5)).toHaveLength(0);
        return ids[0]!;
      };
      await t.api.ack({ job_id: await next() });
      await t.api.nack({ job_id: await next(), error: { code: 'handler_error', message: 'no' } });
      await t.api.cancelJob(await next());
      const rescued = await next();
      await t.advance(1_001);
      await t.expectState(rescued, 'discarded');
      expect(await t.claimIds([queue], 5)).toHaveLength(1);
    });

    suite.test('rate-limit.wait-wakes-on-release', 'a FETCH waiting on a held key claims the job as soon as the key is released', async (t) => {
      const queue = t.queue();
      const key = `${queue}-k`;
      const first = await t.push(queue, limited({ concurrency: 1, key }));
      const second = await t.push(queue, limited({ concurrency: 1, key }));
      expect(await t.claimIds([queue], 1)).toEqual([first.id]);
      const started = Date.now();
      const waiting = t.api.fetch({ queues: [queue], count: 1, wait_ms: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.api.ack({ job_id: first.id });
      const res = await waiting;
      expect(res.jobs.map((j) => j.id)).toEqual([second.id]);
      // without the wake-up it would return empty after the whole 10 s
      expect(Date.now() - started).toBeLessThan(8_000);
    });

    suite.test('rate-limit.queue-level', "a queue's configured limit holds every job of the queue, and combines with a job's own", async (t) => {
      const queue = t.queue();
      const config = await t.api.setQueueConfig(queue, { rate_limit: { concurrency: 1 } });
      expect(config.rate_limit).toEqual({ max_per_second: null, concurrency: 1 });
      expect((await t.api.getQueueConfig(queue)).rate_limit).toEqual({ max_per_second: null, concurrency: 1 });
      for (let i = 0; i < 3; i++) await t.push(queue);
      await t.push(queue, limited({ concurrency: 5, key: `${queue}-k` }));
      const first = await t.claimIds([queue], 4);
      expect(first).toHaveLength(1);
      expect(await t.claimIds([queue], 4)).toHaveLength(0);
      await t.api.ack({ job_id: first[0]! });
      expect(await t.claimIds([queue], 4)).toHaveLength(1);

      const spaced = t.queue();
      await t.api.setQueueConfig(spaced, { rate_limit: SLOW });
      for (let i = 0; i < 2; i++) await t.push(spaced);
      expect(await t.claimIds([spaced], 2)).toHaveLength(1);
      expect(await t.claimIds([spaced], 2)).toHaveLength(0);
    });

    suite.test('rate-limit.inspect', 'the rate-limit view shows the window and the jobs in flight per key', async (t) => {
      const queue = t.queue();
      const key = `${queue}-k`;
      const idle = await t.api.getQueueRateLimits(queue);
      expect(idle).toMatchObject({ queue, window: { last_claim_at: null, next_allowed_at: null }, active: 0, keys: [] });
      for (let i = 0; i < 3; i++) await t.push(queue, limited({ max_per_second: 0.2, concurrency: 2, key }));
      await t.claimIds([queue], 3);
      const view = await t.api.getQueueRateLimits(queue);
      expect(view.window.interval_ms).toBe(5_000);
      expect(Date.parse(view.window.next_allowed_at!) - Date.parse(view.window.last_claim_at!)).toBe(5_000);
      expect(view.active).toBe(1);
      expect(view.keys).toEqual([{ key, active: 1, concurrency: 2 }]);
    });
  });
}
