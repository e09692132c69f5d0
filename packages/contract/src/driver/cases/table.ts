/**
 * The transition table enforced where the data lives: for every ordered pair of distinct states, a direct
 * compare-and-set whose `from` names the job's state is applied exactly when core's `TRANSITIONS` has that
 * edge. The pairs are generated from the table and `JOB_STATES`, so a row added or removed in core changes
 * the cases, and a driver that trusts its caller's `from` fails them.
 */
import { expect } from 'vitest';
import { JOB_STATES, type JobState } from '@ojskit/core';
import type { TransitionOp } from '@ojskit/core/driver';
import { DISPATCH_EFFECTS, canTransition, effectChanges, type TransitionEffect } from '@ojskit/core/lifecycle';
import { iso, T0 } from '../context.js';
import type { DriverSuite } from '../harness.js';

/**
 * Every ordered pair of distinct states, split by whether the table has the edge; `dispatch` holds the pairs
 * only the dispatch-log extension has (`DISPATCH_TRANSITIONS`), legal exactly on a driver with
 * `capabilities.dispatchLog`.
 */
export function statePairs(): { legal: Array<[JobState, JobState]>; illegal: Array<[JobState, JobState]>; dispatch: Array<[JobState, JobState]> } {
  const legal: Array<[JobState, JobState]> = [];
  const illegal: Array<[JobState, JobState]> = [];
  const dispatch: Array<[JobState, JobState]> = [];
  for (const from of JOB_STATES) {
    for (const to of JOB_STATES) {
      if (from === to) continue; // same state: an in-place update, not a move (transition.in-place)
      if (canTransition(from, to)) legal.push([from, to]);
      else if (canTransition(from, to, undefined, { dispatchLog: true })) dispatch.push([from, to]);
      else illegal.push([from, to]);
    }
  }
  return { legal, illegal, dispatch };
}

/** The op of a dispatch-log row, writing what its effect writes (the claim's inputs as `move` gives them). */
function dispatchMove(id: string, effect: TransitionEffect): TransitionOp {
  const changes = effectChanges(effect, MOVED_AT, iso(MOVED_AT));
  const op = move(id, effect.from[0]!, effect.to);
  return { ...op, set: { ...changes.set, ...op.set }, unset: changes.unset, x: { ...changes.x, ...op.x } };
}

const MOVED_AT = T0 + 10;

/**
 * The op moving a job `from → to`, writing what the engine writes on entering `to` (the same fields for a
 * refused pair, so that only the table can be the reason for the refusal).
 */
function move(id: string, from: JobState, to: JobState): TransitionOp {
  const op: TransitionOp = { id, from: [from], to, set: {}, x: { visibleUntil: null, timeoutAt: null } };
  switch (to) {
    case 'available':
      op.set = { enqueued_at: iso(MOVED_AT) };
      op.x = { ...op.x, dueAt: null, finishedAt: null, deadLetter: null };
      break;
    case 'active':
      op.set = { started_at: iso(MOVED_AT), worker_id: 'mover', attempt: 1 };
      op.x = { claimVisibilityMs: 1_000, visibleUntil: MOVED_AT + 1_000, timeoutAt: MOVED_AT + 2_000 };
      break;
    case 'scheduled':
      op.set = { scheduled_at: iso(MOVED_AT + 1_000) };
      op.x = { ...op.x, dueAt: MOVED_AT + 1_000, finishedAt: null };
      break;
    case 'retryable':
      op.set = { next_attempt_at: iso(MOVED_AT + 1_000) };
      op.x = { ...op.x, dueAt: MOVED_AT + 1_000 };
      break;
    case 'pending':
      op.x = { ...op.x, finishedAt: null };
      break;
    case 'completed':
      op.set = { completed_at: iso(MOVED_AT) };
      op.x = { ...op.x, finishedAt: MOVED_AT };
      break;
    case 'cancelled':
      op.set = { cancelled_at: iso(MOVED_AT) };
      op.x = { ...op.x, finishedAt: MOVED_AT };
      break;
    case 'discarded':
      op.set = { discarded_at: iso(MOVED_AT) };
      op.x = { ...op.x, finishedAt: MOVED_AT };
      break;
    default:
      // A state added to core's JOB_STATES stops the build here until its entry fields are written down.
      to satisfies never;
  }
  return op;
}

/** Each case's queue is held (`heldQueue`): on a driver with a dispatch log its job stays where the case put it. */
export function registerTableCases(suite: DriverSuite): void {
  const { legal, illegal, dispatch } = statePairs();

  suite.group('transition table: the dispatch-log rows (an ojskit extension)', () => {
    for (const [from, to] of dispatch) {
      const effect = Object.values(DISPATCH_EFFECTS).find((e) => e.to === to && e.from.includes(from))!;
      suite.test(
        `table.dispatch.${from}-${to}`,
        `applies ${from} → ${to} (DISPATCH_TRANSITIONS) exactly when the driver has capabilities.dispatchLog, and refuses it untouched otherwise`,
        async (t) => {
          const q = t.heldQueue();
          const s = t.job(q, { state: from });
          if (from === 'pending') s.x.dispatchedAt = T0;
          await t.insert([s]);
          const op = dispatchMove(s.job.id, effect);
          if (t.driver.capabilities.dispatchLog === true) {
            expect(await t.driver.jobTransition(op)).toMatchObject({ ok: true, from, job: { id: s.job.id, state: to } });
            const stored = await t.stored(s.job.id);
            expect(stored.job.state).toBe(to);
            for (const field of effect.xStamp) expect(stored.x[field as keyof typeof stored.x]).toBe(MOVED_AT);
            for (const field of effect.xUnset) expect(stored.x[field as keyof typeof stored.x]).toBeUndefined();
            expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ [from]: 0, [to]: 1 });
          } else {
            const before = await t.stored(s.job.id);
            const counts = await t.driver.jobCounts({ queue: q });
            expect(await t.driver.jobTransition(op)).toMatchObject({ ok: false, state: from });
            expect(await t.stored(s.job.id)).toEqual(before);
            expect(await t.driver.jobCounts({ queue: q })).toEqual(counts);
          }
        },
      );
    }
  });

  suite.group('transition table: refused edges', () => {
    for (const [from, to] of illegal) {
      suite.test(
        `table.refuses.${from}-${to}`,
        `refuses ${from} → ${to} (not in TRANSITIONS) even when from names ${from}, whatever it asks back, leaving the job untouched`,
        async (t) => {
          const q = t.heldQueue();
          const s = t.job(q, { state: from });
          await t.insert([s]);
          const before = await t.stored(s.job.id);
          const counts = await t.driver.jobCounts({ queue: q });
          expect(await t.driver.jobTransition(move(s.job.id, from, to))).toMatchObject({ ok: false, state: from });
          expect(await t.driver.jobTransition({ ...move(s.job.id, from, to), returning: 'summary' })).toMatchObject({ ok: false, state: from });
          expect(await t.stored(s.job.id)).toEqual(before);
          expect(await t.driver.jobCounts({ queue: q })).toEqual(counts);
        },
      );
    }
  });

  suite.group('transition table: allowed edges', () => {
    for (const [from, to] of legal) {
      suite.test(`table.allows.${from}-${to}`, `applies ${from} → ${to} (in TRANSITIONS) and moves the job's count`, async (t) => {
        const q = t.heldQueue();
        const s = t.job(q, { state: from });
        await t.insert([s]);
        const result = await t.driver.jobTransition(move(s.job.id, from, to));
        expect(result).toMatchObject({ ok: true, from, job: { id: s.job.id, state: to } });
        expect((await t.stored(s.job.id)).job.state).toBe(to);
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ [from]: 0, [to]: 1 });
      });
    }
  });
}
