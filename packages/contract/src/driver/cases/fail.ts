/**
 * `jobFailMany` (FAIL, requeue, execution timeout, reclaim): each outcome applies its effect from core's
 * `EFFECTS` and lands the job in the right index; the guards (state, attempt, worker, deadline) refuse with the
 * state that holds and change nothing; batches of mixed outcomes are answered item by item.
 */
import { expect } from 'vitest';
import { JOB_STATES, type JobError } from '@ojskit/core';
import type { FailItem, FailOutcome } from '@ojskit/core/driver';
import { EFFECTS, STATE_ROLES } from '@ojskit/core/lifecycle';
import { iso, T0, type DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';
import { expectEffectApplied } from './effect-applied.js';

const FAILED_AT = T0 + 9;
const ACTIVE = STATE_ROLES.claimed;
const DELAY_MS = 5_000;

const error = (message: string): JobError => ({ code: 'handler_error', type: 'handler_error', message, attempt: 1, occurred_at: iso(FAILED_AT) });

/** An active job of its own queue, claimed by `w1` at T0 (attempt 1). */
async function activeJob(t: DriverCaseContext): Promise<{ id: string; queue: string }> {
  const queue = t.queue();
  const s = t.job(queue);
  await t.insert([s]);
  expect(await t.claimIds([queue], 1)).toEqual([s.job.id]);
  return { id: s.job.id, queue };
}

const fail = (t: DriverCaseContext, jobs: readonly FailItem[]) => t.driver.jobFailMany({ jobs, now: FAILED_AT, nowIso: iso(FAILED_AT) });

/** A failure item of `outcome` for an attempt-1 job, with the inputs that outcome reads. */
function item(id: string, outcome: FailOutcome, over: Partial<FailItem> = {}): FailItem {
  const e = error(outcome);
  const base: FailItem = { id, outcome, attempt: 1 };
  if (outcome !== 'requeue') Object.assign(base, { error: e, errors: [e] });
  if (outcome === 'retry') base.retryDelayMs = DELAY_MS;
  if (outcome === 'discard' || outcome === 'reclaimDiscard') base.deadLetter = true;
  return { ...base, ...over };
}

const OUTCOMES: readonly FailOutcome[] = ['retry', 'discard', 'reclaim', 'reclaimDiscard', 'requeue'];

export function registerFailCases(suite: DriverSuite): void {
  suite.group('jobFailMany', () => {
    for (const outcome of OUTCOMES) {
      const effect = EFFECTS[outcome];
      suite.test(
        `fail.effects.${outcome}`,
        `applies EFFECTS.${outcome}: ${ACTIVE} → ${effect.to}, its stamps and removals, its inputs, and the index it lands in`,
        async (t) => {
          const { id, queue } = await activeJob(t);
          // A dispatch log leaves a job this outcome makes ready in `available` until released below.
          t.dispatch.hold(queue);
          const sent = item(id, outcome, { workerId: 'w1' });
          const [result] = await fail(t, [sent]);
          expect(result).toMatchObject({ ok: true, from: ACTIVE, job: { id, state: effect.to } });
          const stored = await t.stored(id);
          expect(stored.job).toEqual((result as { job: unknown }).job);
          expectEffectApplied(stored, effect, FAILED_AT, outcome);
          expect(stored.x.visibleUntil).toBeUndefined();
          expect(await t.driver.jobCounts({ queue })).toMatchObject({ [ACTIVE]: 0, [effect.to]: 1 });
          expect(await t.driver.jobListOverdue({ now: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]);
          const dead = (await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).jobs.map((j) => j.id);
          await t.dispatch.release(queue);
          if (outcome === 'requeue') {
            expect(stored.job.attempt, 'the attempt is handed back').toBe(0);
            expect(stored.job.error).toBeUndefined();
          } else {
            expect(stored.job.attempt, 'the attempt is consumed').toBe(1);
            expect(stored.job.error).toEqual(sent.error);
            expect(stored.job.errors).toEqual(sent.errors);
          }
          if (outcome === 'retry') {
            expect(stored.job.retry_delay_ms).toBe(DELAY_MS);
            expect(stored.job.next_attempt_at).toBe(iso(FAILED_AT + DELAY_MS));
            expect(stored.x.dueAt).toBe(FAILED_AT + DELAY_MS);
            // due by its delay: not claimable a millisecond early, promoted and claimed at its time
            expect(await t.claimIds([queue], 1, { now: FAILED_AT + DELAY_MS - 1 })).toEqual([]);
            expect(await t.claimIds([queue], 1, { now: FAILED_AT + DELAY_MS })).toEqual([id]);
          } else if (effect.to === STATE_ROLES.promoted) {
            // back in the queue: claimable at once, as a new attempt
            expect((await t.claim([queue], 1, { now: FAILED_AT })).jobs.map((j) => [j.id, j.attempt])).toEqual([[id, outcome === 'requeue' ? 1 : 2]]);
          } else {
            expect(stored.x.finishedAt).toBe(FAILED_AT);
            expect(dead).toEqual([id]);
            expect(await t.claimIds([queue], 1, { now: FAILED_AT })).toEqual([]);
          }
          if (effect.to !== EFFECTS.discard.to) expect(dead).toEqual([]);
        },
      );
    }

    suite.test('fail.discard-without-dead-letter', 'a discard without deadLetter is discarded and finished, but not in the dead-letter queue', async (t) => {
      const { id } = await activeJob(t);
      expect(await fail(t, [item(id, 'discard', { deadLetter: false })])).toMatchObject([{ ok: true, job: { state: EFFECTS.discard.to } }]);
      expect((await t.stored(id)).x.deadLetter).toBeFalsy();
      expect(await t.driver.jobList({ deadLetter: true, limit: 10, offset: 0 })).toEqual({ jobs: [], total: 0 });
    });

    suite.test(
      'fail.guards',
      'refuses a wrong attempt, another worker, a moved deadline or a job not active, reporting the state that holds and the job, changing nothing; an unknown id reports null',
      async (t) => {
        const { id, queue } = await activeJob(t);
        const before = await t.stored(id);
        const visibleUntil = before.x.visibleUntil!;
        const counts = await t.driver.jobCounts({ queue });
        for (const outcome of OUTCOMES) {
          for (const over of [{ attempt: 2 }, { attempt: 0 }, { workerId: 'w2' }, { visibleUntil: visibleUntil + 1 }, { visibleUntil: visibleUntil - 1 }]) {
            expect(await fail(t, [item(id, outcome, over)]), `${outcome} ${JSON.stringify(over)}`).toEqual([{ ok: false, state: ACTIVE, job: before.job }]);
          }
        }
        expect(await t.stored(id)).toEqual(before);
        expect(await t.driver.jobCounts({ queue })).toEqual(counts);
        expect(await fail(t, [item('00000000-0000-7000-8000-000000000000', 'retry')])).toEqual([{ ok: false, state: null }]);
        // the guards that hold all together let it through
        expect(await fail(t, [item(id, 'reclaim', { workerId: 'w1', visibleUntil })])).toMatchObject([{ ok: true, from: ACTIVE }]);
        // every other state refuses every outcome
        const held = t.heldQueue();
        for (const state of JOB_STATES.filter((s) => s !== ACTIVE)) {
          const s = t.job(held, { state, attempt: 1 });
          await t.insert([s]);
          const stored = await t.stored(s.job.id);
          for (const outcome of OUTCOMES)
            expect(await fail(t, [item(s.job.id, outcome)]), `${state} ${outcome}`).toMatchObject([{ ok: false, state, job: { id: s.job.id, state } }]);
          expect(await t.stored(s.job.id), state).toEqual(stored);
        }
      },
    );

    suite.test(
      'fail.batch-mixed',
      'a batch answers item by item in order: each outcome on its own job, a refused guard, an unknown id, the same id twice (the second sees the first)',
      async (t) => {
        const q = t.queue();
        const jobs = Array.from({ length: 5 }, () => t.job(q));
        await t.insert(jobs);
        expect(await t.claimIds([q], 5)).toHaveLength(5);
        const [a, b, c, d, e] = jobs.map((s) => s.job.id) as [string, string, string, string, string];
        const results = await fail(t, [
          item(a, 'retry'),
          item(b, 'discard'),
          item(c, 'requeue'),
          item(d, 'retry', { attempt: 3 }),
          item('00000000-0000-7000-8000-000000000000', 'discard'),
          item(a, 'discard'),
          item(e, 'reclaim'),
        ]);
        expect(results.map((r) => (r.ok ? ['ok', (r as { job: { state: string } }).job.state] : ['refused', r.state]))).toEqual([
          ['ok', EFFECTS.retry.to],
          ['ok', EFFECTS.discard.to],
          ['ok', EFFECTS.requeue.to],
          ['refused', ACTIVE],
          ['refused', null],
          ['refused', EFFECTS.retry.to],
          ['ok', EFFECTS.reclaim.to],
        ]);
        expect((await t.stored(d)).job.state).toBe(ACTIVE);
        expect(await fail(t, [])).toEqual([]);
      },
    );
  });
}
