/**
 * Age boost (issue 27 item 6; spec/admin.md "Age boost"): a queue's `age_boost.interval_ms` makes the claim take
 * jobs by `enqueued_ms − priority × interval_ms` (core's priority/age-boost.ts), so an old low-priority job is
 * claimed within a bound however many high-priority jobs keep coming. Ranks use each job's `enqueued_at`, which
 * the manual clock stamps: no case depends on the store's clock or on timing.
 */
import { expect } from 'vitest';
import { ageBoostBoundMs } from '@ojskit/core/driver';
import type { Suite } from '../harness.js';
import type { CaseContext } from '../context.js';
import { expectOjsError } from '../support/errors.js';

const INTERVAL_MS = 1_000;
const LOW = -2;
const HIGH = 2;
const STEP_MS = 1_000;

/**
 * A producer that outruns the workers: at each step two priority-HIGH jobs come and one job is claimed, with a
 * priority-LOW job waiting from the start. Returns the ids claimed in order and when each HIGH job was enqueued.
 */
async function starve(t: CaseContext, queue: string, steps: number): Promise<{ low: string; claimed: string[]; enqueuedAt: Map<string, number> }> {
  const start = t.now();
  const low = (await t.push(queue, { options: { priority: LOW } })).id;
  const enqueuedAt = new Map<string, number>([[low, start]]);
  const claimed: string[] = [];
  for (let k = 1; k <= steps; k++) {
    t.clock.advance(STEP_MS);
    for (let n = 0; n < 2; n++) enqueuedAt.set((await t.push(queue, { options: { priority: HIGH } })).id, t.now());
    claimed.push(...(await t.claimIds([queue])));
  }
  return { low, claimed, enqueuedAt };
}

export function registerAgeBoostCases(suite: Suite): void {
  suite.group('age boost', () => {
    suite.test('age-boost.config', 'age_boost is stored with the queue configuration, as interval_ms or a duration, and removed by null', async (t) => {
      const queue = t.queue();
      expect((await t.api.getQueueConfig(queue)).age_boost).toBeNull();
      expect((await t.api.setQueueConfig(queue, { age_boost: { interval_ms: 1500 } })).age_boost).toEqual({ interval_ms: 1500 });
      expect((await t.api.setQueueConfig(queue, { age_boost: { interval: 'PT5M' } })).age_boost).toEqual({ interval_ms: 300_000 });
      expect((await t.api.getQueueConfig(queue)).age_boost).toEqual({ interval_ms: 300_000 });
      expect((await t.api.setQueueConfig(queue, { age_boost: null })).age_boost).toBeNull();
      await expectOjsError(t.api.setQueueConfig(queue, { age_boost: { interval_ms: 0 } }), {
        code: 'invalid_request',
        details: { field: 'age_boost.interval_ms' },
      });
      await expectOjsError(t.api.setQueueConfig(queue, { age_boost: { interval: 'soon' } }), {
        code: 'invalid_request',
        details: { field: 'age_boost.interval' },
      });
      await expectOjsError(t.api.setQueueConfig(queue, { age_boost: { step: 1 } }), { code: 'invalid_request', details: { field: 'age_boost.step' } });
      await expectOjsError(t.api.setQueueConfig(queue, { age_boost: 5 }), { code: 'invalid_request', details: { field: 'age_boost' } });
    });

    suite.test(
      'age-boost.starved-job-claimed',
      'a low-priority job under a stream of high-priority ones is claimed within the bound with age_boost, and starves without it',
      async (t) => {
        const aged = t.queue();
        await t.api.setQueueConfig(aged, { age_boost: { interval_ms: INTERVAL_MS } });
        const run = await starve(t, aged, 16);
        const at = run.claimed.indexOf(run.low);
        expect(at, 'the low-priority job is claimed').toBeGreaterThanOrEqual(0);
        const start = run.enqueuedAt.get(run.low)!;
        // The formula exactly: a HIGH job ranks ahead while enqueued less than (HIGH − LOW) × interval after it
        // (an equal rank goes by FIFO sequence: the low job first).
        const overtakeMs = (HIGH - LOW) * INTERVAL_MS;
        for (const id of run.claimed.slice(0, at)) expect(run.enqueuedAt.get(id)! - start).toBeLessThan(overtakeMs);
        for (const id of run.claimed.slice(at + 1)) expect(run.enqueuedAt.get(id)! - start).toBeGreaterThanOrEqual(overtakeMs);
        // …and the documented bound for any competitor: never passed by a job enqueued (100 − p) × interval later
        expect(overtakeMs).toBeLessThanOrEqual(ageBoostBoundMs(LOW, INTERVAL_MS));
        // without the setting the same stream starves it
        const plain = t.queue();
        const control = await starve(t, plain, 16);
        expect(control.claimed).toHaveLength(16);
        expect(control.claimed).not.toContain(control.low);
      },
      { timeoutMs: 120_000 },
    );

    suite.test('age-boost.batch-order', 'a batch FETCH takes jobs by rank; within one priority the order stays FIFO', async (t) => {
      const aged = t.queue();
      const plain = t.queue();
      await t.api.setQueueConfig(aged, { age_boost: { interval_ms: INTERVAL_MS } });
      // offset (s) and priority → rank = offset − priority (in intervals): b −4, a 0, a2 0.5 (FIFO after a), d 3, c 7
      const plan: Array<[string, number, number]> = [
        ['a', 0, 0],
        ['a2', 0.5, 0],
        ['b', 1, 5],
        ['c', 2, -5],
        ['d', 8, 5],
      ];
      const ids: Record<string, Record<string, string>> = { [aged]: {}, [plain]: {} };
      let offset = 0;
      for (const [name, at, priority] of plan) {
        t.clock.advance((at - offset) * 1000);
        offset = at;
        for (const queue of [aged, plain]) ids[queue]![name] = (await t.push(queue, { options: { priority } })).id;
      }
      const order = (queue: string, claimed: string[]) => claimed.map((id) => Object.keys(ids[queue]!).find((n) => ids[queue]![n] === id));
      expect(order(aged, await t.claimIds([aged], 5))).toEqual(['b', 'a', 'a2', 'd', 'c']);
      expect(order(plain, await t.claimIds([plain], 5))).toEqual(['b', 'd', 'a', 'a2', 'c']);
    });

    suite.test('age-boost.setting-change', 'jobs already queued follow the setting the claim sees: turning it on or off reorders them at once', async (t) => {
      const queue = t.queue();
      const low = await t.push(queue, { options: { priority: LOW } });
      t.clock.advance(60_000);
      const high1 = await t.push(queue, { options: { priority: HIGH } });
      const high2 = await t.push(queue, { options: { priority: HIGH } });
      // off: priority first
      expect(await t.claimIds([queue])).toEqual([high1.id]);
      // on, for jobs enqueued before the setting existed: 60 s of waiting outweighs 20 priority steps of 1 s
      await t.api.setQueueConfig(queue, { age_boost: { interval_ms: INTERVAL_MS } });
      expect(await t.claimIds([queue])).toEqual([low.id]);
      expect(await t.claimIds([queue])).toEqual([high2.id]);
    });
  });
}
