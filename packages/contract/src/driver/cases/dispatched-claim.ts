/**
 * `jobClaim` with `dispatched: true` (a dispatch log's store, `capabilities.dispatchLog`): takes the `pending` jobs
 * the log delivered (`x.dispatchedAt`) by priority then dispatch order, with `DISPATCH_EFFECTS.claim`, discarding
 * expired ones, skipping paused queues and staged jobs; refused by a driver without the capability. Jobs are
 * moved to `pending` here by the dispatch effect itself, in held queues, so a subject's log does not race the case.
 */
import { expect } from 'vitest';
import { DISPATCH_EFFECTS, EFFECTS, effectChanges } from '@ojskit/core/lifecycle';
import { noteOf, type Driver } from '@ojskit/core/driver';
import { iso, T0, TIMEOUT_MS, VISIBILITY_MS } from '../context.js';
import type { DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';

const DISPATCHED_AT = T0 + 10;
const CLAIM_AT = T0 + 100;

/** Moves each job (ids, in order) `available → pending` as a log's dispatcher does, failing the case otherwise. */
async function dispatch(driver: Driver, ids: readonly string[]): Promise<void> {
  const effect = DISPATCH_EFFECTS.dispatch;
  for (const [i, id] of ids.entries()) {
    const changes = effectChanges(effect, DISPATCHED_AT + i, iso(DISPATCHED_AT + i));
    const r = await driver.jobTransition({ id, from: effect.from, to: effect.to, set: changes.set, unset: changes.unset, x: changes.x });
    expect(r, `dispatch of ${id}`).toMatchObject({ ok: true });
  }
}

function claimDispatched(t: DriverCaseContext, queues: readonly string[], limit: number, workerId = 'w1', driver: Driver = t.driver) {
  return t.claim(queues, limit, { now: CLAIM_AT, workerId, dispatched: true }, driver);
}

export function registerDispatchedClaimCases(suite: DriverSuite): void {
  suite.group('jobClaim of dispatched jobs (dispatch-log extension)', () => {
    suite.test(
      'claim.dispatched.refused-without-capability',
      'a driver without capabilities.dispatchLog rejects a claim of dispatched jobs and moves nothing',
      async (t) => {
        if (t.driver.capabilities.dispatchLog === true) return;
        const q = t.queue();
        const a = t.job(q);
        await t.insert([a]);
        await expect(claimDispatched(t, [q], 5)).rejects.toThrow();
        await t.expectCounts(q, { available: 1, active: 0 });
      },
    );

    suite.test(
      'claim.dispatched.order-and-effects',
      'takes dispatched pending jobs by priority then dispatch order with the claim effect; staged pending and available jobs stay',
      async (t) => {
        if (t.driver.capabilities.dispatchLog !== true) return;
        const q = t.heldQueue();
        const [low1, high, neg, low2, waiting] = [t.job(q), t.job(q, { priority: 5 }), t.job(q, { priority: -3 }), t.job(q), t.job(q)];
        const staged = t.job(q, { state: 'pending', priority: 9 });
        await t.insert([low1, high, neg, low2, waiting, staged]);
        await dispatch(
          t.driver,
          [low1, high, neg, low2].map((j) => j.job.id),
        );
        const got = await claimDispatched(t, [q], 10);
        expect(got.jobs.map((j) => j.id)).toEqual([high.job.id, low1.job.id, low2.job.id, neg.job.id]);
        expect(got.expired).toEqual([]);
        for (const job of got.jobs) {
          expect(job).toMatchObject({ state: 'active', attempt: 1, worker_id: 'w1', started_at: iso(CLAIM_AT) });
          const stored = await t.stored(job.id);
          expect(stored.job.state).toBe('active');
          expect(stored.x.dispatchedAt).toBeUndefined();
          expect(stored.x.claimVisibilityMs).toBe(VISIBILITY_MS);
          expect(stored.x.visibleUntil).toBe(CLAIM_AT + VISIBILITY_MS);
          expect(stored.x.timeoutAt).toBe(CLAIM_AT + TIMEOUT_MS);
          if (t.driver.capabilities.history === true) {
            const history = await t.driver.jobHistory?.({ id: job.id });
            expect(history?.entries.at(-1)).toMatchObject({ from: 'pending', to: 'active', trigger: 'fetch', attempt: 1, worker_id: 'w1' });
          }
        }
        expect(await t.state(staged.job.id)).toBe('pending');
        expect(await t.state(waiting.job.id)).toBe('available');
        expect((await claimDispatched(t, [q], 10)).jobs).toEqual([]);
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ active: 4, pending: 1, available: 1 });
        await t.dispatch.release(q);
      },
    );

    suite.test(
      'claim.dispatched.visibility-limit-and-queues',
      "fills from the queues in order up to the limit, with the claim's visibility when given, and skips paused queues",
      async (t) => {
        if (t.driver.capabilities.dispatchLog !== true) return;
        const [qa, qb, qp] = [t.heldQueue(), t.heldQueue(), t.heldQueue()];
        const a = [t.job(qa), t.job(qa)];
        const b = [t.job(qb, { priority: 50 }), t.job(qb)];
        const p = [t.job(qp, { priority: 90 })];
        await t.insert([...a, ...b, ...p]);
        await dispatch(
          t.driver,
          [...a, ...b, ...p].map((j) => j.job.id),
        );
        await t.driver.queueSetPaused({ name: qp, paused: true, nowIso: iso(T0) });
        const got = await t.claim([qp, qa, qb], 3, { now: CLAIM_AT, dispatched: true, visibilityMs: 1_234 });
        expect(got.jobs.map((j) => j.id)).toEqual([a[0]!.job.id, a[1]!.job.id, b[0]!.job.id]);
        expect((await t.stored(b[0]!.job.id)).x.visibleUntil).toBe(CLAIM_AT + 1_234);
        expect(await t.state(p[0]!.job.id)).toBe('pending');
        expect(await t.state(b[1]!.job.id)).toBe('pending');
        for (const q of [qa, qb, qp]) await t.dispatch.release(q);
      },
    );

    suite.test(
      'claim.dispatched.expired',
      'discards a dispatched job past x.expiresAt (the expire effect, marker removed), reports it, and still fills the claim',
      async (t) => {
        if (t.driver.capabilities.dispatchLog !== true) return;
        const q = t.heldQueue();
        const stale = t.job(q, { priority: 9 }, { expiresAt: CLAIM_AT - 1 });
        const fresh = t.job(q);
        await t.insert([stale, fresh]);
        await dispatch(t.driver, [stale.job.id, fresh.job.id]);
        const got = await claimDispatched(t, [q], 1);
        expect(got.jobs.map((j) => j.id)).toEqual([fresh.job.id]);
        expect(got.expired.map((j) => j.id)).toEqual([stale.job.id]);
        const stored = await t.stored(stale.job.id);
        expect(stored.job).toMatchObject({ state: 'discarded', discarded_at: iso(CLAIM_AT), expired_at: iso(CLAIM_AT) });
        expect(stored.x.dispatchedAt).toBeUndefined();
        await t.dispatch.release(q);
      },
    );

    suite.test(
      'claim.dispatched.rate-limits',
      "applies the rate limits (core's rule, capabilities.rateLimiting): a job its key holds back stays pending in place with a held hint, jobs behind it and of other keys are taken, and the slot frees when the holder leaves active",
      async (t) => {
        if (t.driver.capabilities.dispatchLog !== true || t.driver.capabilities.rateLimiting !== true) return;
        const q = t.heldQueue();
        const key = { concurrency: 1, key: `one-${q}` };
        const other = { concurrency: 1, key: `other-${q}` };
        const [first, second, free, third] = [t.job(q, {}, { rateLimit: key }), t.job(q, {}, { rateLimit: key }), t.job(q), t.job(q, {}, { rateLimit: other })];
        await t.insert([first, second, free, third]);
        await dispatch(
          t.driver,
          [first, second, free, third].map((j) => j.job.id),
        );
        const got = await claimDispatched(t, [q], 10);
        expect(got.jobs.map((j) => j.id)).toEqual([first.job.id, free.job.id, third.job.id]);
        expect(got.held, 'the claim says a job was held back (concurrency only: no spacing to wait for)').toEqual({});
        expect(await t.state(second.job.id)).toBe('pending');
        expect((await t.stored(second.job.id)).x.dispatchedAt, 'held back in place: still dispatched').toBeDefined();
        expect((await claimDispatched(t, [q], 10, 'w2')).jobs, 'the key is still taken for another claimer').toEqual([]);
        const [acked] = await t.driver.jobCompleteMany({
          jobs: [{ id: first.job.id, attempt: 1, workerId: 'w1' }],
          now: CLAIM_AT + 1,
          nowIso: iso(CLAIM_AT + 1),
        });
        expect(acked).toMatchObject({ ok: true });
        expect((await claimDispatched(t, [q], 10, 'w2')).jobs.map((j) => j.id)).toEqual([second.job.id]);
        await t.dispatch.release(q);
      },
    );

    suite.test(
      'claim.dispatched.no-activate',
      "ACTIVATE (pending → available) of a delivered job is refused by the store's guard, in the same atomic step; a staged pending job still activates",
      async (t) => {
        if (t.driver.capabilities.dispatchLog !== true) return;
        const q = t.heldQueue();
        const delivered = t.job(q);
        const staged = t.job(q, { state: DISPATCH_EFFECTS.dispatch.to });
        await t.insert([delivered, staged]);
        await dispatch(t.driver, [delivered.job.id]);
        const activate = (id: string) => {
          const changes = effectChanges(EFFECTS.activate, CLAIM_AT, iso(CLAIM_AT));
          return t.driver.jobTransition({
            id,
            from: [DISPATCH_EFFECTS.dispatch.to],
            to: EFFECTS.activate.to,
            ...changes,
            note: noteOf(EFFECTS.activate, iso(CLAIM_AT)),
          });
        };
        expect(await activate(delivered.job.id)).toMatchObject({ ok: false, state: DISPATCH_EFFECTS.dispatch.to });
        expect((await t.stored(delivered.job.id)).x.dispatchedAt, 'still delivered').toBe(DISPATCHED_AT);
        expect(await activate(staged.job.id)).toMatchObject({ ok: true, from: DISPATCH_EFFECTS.dispatch.to });
        await t.dispatch.release(q);
      },
    );

    suite.test('claim.dispatched.racers', 'claimers racing on several connections take every dispatched job exactly once', async (t) => {
      if (t.driver.capabilities.dispatchLog !== true) return;
      const q = t.heldQueue();
      const jobs = Array.from({ length: 60 }, (_, i) => t.job(q, { priority: i % 2 }));
      await t.insert(jobs);
      await dispatch(
        t.driver,
        jobs.map((j) => j.job.id),
      );
      const racers = await t.racers(3);
      const lists = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const ids: string[] = [];
          for (;;) {
            const got = await claimDispatched(t, [q], 4, `w${i}`, racers[i % racers.length]);
            if (got.jobs.length === 0) return ids;
            ids.push(...got.jobs.map((j) => j.id));
          }
        }),
      );
      const claimed = lists.flat();
      expect(new Set(claimed).size, 'no job is returned to two claimers').toBe(claimed.length);
      expect([...claimed].sort()).toEqual(jobs.map((j) => j.job.id).sort());
      await t.dispatch.release(q);
    });
  });
}
