/**
 * Atomicity under races. Callers are spread over the subject's driver and its peers (other connections to the
 * same store), all firing at once: a claim, a completion, a failure, a guarded transition, a cron advance, a lease
 * or a unique insert must have exactly one winner, whatever the interleaving.
 */
import { expect } from 'vitest';
import type { Driver, TransitionOp, TransitionResult } from '@ojskit/core/driver';
import { EFFECTS } from '@ojskit/core/lifecycle';
import { iso, T0, type DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';
import { cronRecord } from './records.js';

const RACERS = 4;
const ROUNDS = 5;

/** Round-robin over the racers. */
const pick = (racers: readonly Driver[], i: number): Driver => racers[i % racers.length]!;

/** An active job of its own queue, claimed by `w1` at T0. */
async function activeJob(t: DriverCaseContext): Promise<string> {
  const q = t.queue();
  const s = t.job(q);
  await t.insert([s]);
  expect(await t.claimIds([q], 1)).toEqual([s.job.id]);
  return s.job.id;
}

export function registerRaceCases(suite: DriverSuite): void {
  suite.group('races', () => {
    suite.test('race.claimers', 'many claimers on several connections drain a queue: every job is claimed exactly once', async (t) => {
      const q = t.queue();
      const jobs = Array.from({ length: 200 }, (_, i) => t.job(q, { priority: i % 2 }));
      await t.insert(jobs);
      const racers = await t.racers(RACERS);
      const lists = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const ids: string[] = [];
          for (;;) {
            const got = await t.claim([q], 7, { workerId: `w${i}` }, pick(racers, i));
            if (got.jobs.length === 0) return ids;
            ids.push(...got.jobs.map((j) => j.id));
          }
        }),
      );
      const claimed = lists.flat();
      expect(new Set(claimed).size, 'no job is returned to two claimers').toBe(claimed.length);
      expect([...claimed].sort()).toEqual(jobs.map((j) => j.job.id).sort());
      expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ available: 0, active: 200 });
      for (const [i, ids] of lists.entries()) for (const id of ids.slice(0, 1)) expect((await t.stored(id)).job.worker_id).toBe(`w${i}`);
    });

    suite.test(
      'race.terminal-transitions',
      'racing ACK (jobCompleteMany), FAIL (jobFailMany: discard) and CANCEL (jobTransition) on one active job: exactly one wins, and every loser is told the state that beat it',
      async (t) => {
        const racers = await t.racers(RACERS);
        const now = T0 + 1;
        const nowIso = iso(now);
        for (let round = 0; round < ROUNDS; round++) {
          const id = await activeJob(t);
          const cancel: TransitionOp = { id, from: EFFECTS.cancel.from, to: EFFECTS.cancel.to, set: { cancelled_at: nowIso }, x: { finishedAt: now } };
          const calls: Array<(driver: Driver) => Promise<TransitionResult>> = [
            (driver) => driver.jobCompleteMany({ jobs: [{ id, attempt: 1, workerId: 'w1' }], now, nowIso, returning: 'summary' }).then((r) => r[0]!),
            (driver) => driver.jobTransition(cancel),
            (driver) => driver.jobFailMany({ jobs: [{ id, outcome: 'discard', attempt: 1 }], now, nowIso }).then((r) => r[0]!),
          ];
          const results = await Promise.all(Array.from({ length: 12 }, (_, i) => calls[i % calls.length]!(pick(racers, i))));
          const winners = results.filter((r) => r.ok);
          expect(winners, `round ${round}`).toHaveLength(1);
          const final = (await t.stored(id)).job.state;
          for (const loser of results.filter((r) => !r.ok)) expect(loser, `round ${round}`).toMatchObject({ ok: false, state: final });
        }
      },
    );

    suite.test(
      'race.complete-vs-fail',
      "two workers on separate connections, one completing and one failing (retry) the same job: exactly one wins, the other is told the winner's state",
      async (t) => {
        const racers = await t.racers(2);
        for (let round = 0; round < ROUNDS * 2; round++) {
          const id = await activeJob(t);
          const now = T0 + 1;
          const [first, second] = round % 2 === 0 ? [racers[0]!, racers[1] ?? racers[0]!] : [racers[1] ?? racers[0]!, racers[0]!];
          const [completed, failed] = await Promise.all([
            first.jobCompleteMany({ jobs: [{ id, attempt: 1, workerId: 'w1' }], now, nowIso: iso(now), returning: 'summary' }).then((r) => r[0]!),
            second.jobFailMany({ jobs: [{ id, outcome: 'retry', attempt: 1, workerId: 'w1', retryDelayMs: 1_000 }], now, nowIso: iso(now) }).then((r) => r[0]!),
          ]);
          expect([completed.ok, failed.ok].filter(Boolean), `round ${round}`).toHaveLength(1);
          const state = (await t.stored(id)).job.state;
          expect(state).toBe(completed.ok ? EFFECTS.ack.to : EFFECTS.retry.to);
          expect(completed.ok ? failed : completed).toMatchObject({ ok: false, state });
        }
      },
    );

    suite.test('race.same-primitive-twice', 'two workers on separate connections completing (or failing) the same job at once: exactly one wins', async (t) => {
      const racers = await t.racers(2);
      for (let round = 0; round < ROUNDS * 2; round++) {
        const id = await activeJob(t);
        const now = T0 + 1;
        const results = await Promise.all(
          [0, 1].map((k) => {
            const driver = racers[k] ?? racers[0]!;
            return round % 2 === 0
              ? driver.jobCompleteMany({ jobs: [{ id, attempt: 1, result: k }], now, nowIso: iso(now) }).then((r) => r[0]!)
              : driver.jobFailMany({ jobs: [{ id, outcome: 'discard', attempt: 1, deadLetter: k === 0 }], now, nowIso: iso(now) }).then((r) => r[0]!);
          }),
        );
        expect(
          results.filter((r) => r.ok),
          `round ${round}`,
        ).toHaveLength(1);
        const winner = results.findIndex((r) => r.ok);
        const stored = await t.stored(id);
        if (round % 2 === 0) expect(stored.job.result, 'the winner wrote its result').toBe(winner);
        else expect(stored.x.deadLetter === true, "the winner's dead-letter flag holds").toBe(winner === 0);
        expect(results[1 - winner]).toMatchObject({ ok: false, state: stored.job.state });
      }
    });

    suite.test(
      'race.rescue-vs-complete',
      "the rescuer's reclaim of an overdue job (jobFailMany, guarded by its deadline) races the worker's ACK: exactly one wins",
      async (t) => {
        const racers = await t.racers(2);
        for (let round = 0; round < ROUNDS * 2; round++) {
          const id = await activeJob(t);
          const now = T0 + 10 * 60_000;
          const [overdue] = await t.driver.jobListOverdue({ now, limit: 1 });
          expect(overdue?.job.id).toBe(id);
          const [first, second] = round % 2 === 0 ? [racers[0]!, racers[1] ?? racers[0]!] : [racers[1] ?? racers[0]!, racers[0]!];
          const [rescued, completed] = await Promise.all([
            first
              .jobFailMany({ jobs: [{ id, outcome: 'reclaim', attempt: 1, visibleUntil: overdue!.x.visibleUntil! }], now, nowIso: iso(now) })
              .then((r) => r[0]!),
            second.jobCompleteMany({ jobs: [{ id, attempt: 1, workerId: 'w1' }], now, nowIso: iso(now), returning: 'summary' }).then((r) => r[0]!),
          ]);
          expect([rescued.ok, completed.ok].filter(Boolean), `round ${round}`).toHaveLength(1);
          // A reclaimed job is ready again: a dispatch log may deliver it at once, so it is read settled.
          if (rescued.ok) await t.expectReady(id);
          else expect((await t.stored(id)).job.state).toBe(EFFECTS.ack.to);
          if (!rescued.ok) expect(rescued).toMatchObject({ state: EFFECTS.ack.to });
          // The state that beat the ACK, or where a dispatch log had delivered the reclaimed job by then.
          if (!completed.ok) expect([EFFECTS.reclaim.to, t.dispatch.ready]).toContain(completed.state);
        }
      },
    );

    suite.test('race.promote-vs-claim', 'promoters and claimers racing over the same due jobs: each job is promoted once and claimed once', async (t) => {
      const q = t.queue();
      const jobs = Array.from({ length: 60 }, (_, i) => t.job(q, { state: i % 2 ? 'retryable' : 'scheduled' }, { dueAt: T0 + i }));
      await t.insert(jobs);
      const racers = await t.racers(RACERS);
      const now = T0 + 1_000;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2 === 0
            ? pick(racers, i)
                .jobPromote({ now, nowIso: iso(now), limit: 15 })
                .then((r) => ({ promoted: r.promoted.map((p) => p.id), claimed: [] as string[] }))
            : t
                .claim([q], 10, { now, workerId: `w${i}` }, pick(racers, i))
                .then((r) => ({ promoted: r.promoted.map((p) => p.id), claimed: r.jobs.map((j) => j.id) })),
        ),
      );
      const promoted = results.flatMap((r) => r.promoted);
      const claimed = results.flatMap((r) => r.claimed);
      expect(new Set(promoted).size, 'no job promoted twice').toBe(promoted.length);
      expect(new Set(claimed).size, 'no job claimed twice').toBe(claimed.length);
      const rest = (await t.claim([q], 100, { now })).jobs.map((j) => j.id);
      expect([...claimed, ...rest].sort()).toEqual(jobs.map((j) => j.job.id).sort());
    });

    suite.test('race.cron-advance', 'firers racing to advance one cron occurrence: exactly one advance applies', async (t) => {
      const racers = await t.racers(RACERS);
      for (let round = 0; round < ROUNDS; round++) {
        const name = t.name();
        await t.driver.cronUpsert(cronRecord(name));
        const wins = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            pick(racers, i).cronAdvance({ name, expectNextRunMs: T0 + 60_000, patch: { nextRunMs: T0 + 120_000, run_count: 1, lastJobId: `j${i}` } }),
          ),
        );
        expect(wins.filter(Boolean), `round ${round}`).toHaveLength(1);
        const stored = await t.driver.cronGet(name);
        expect(stored).toMatchObject({ nextRunMs: T0 + 120_000, run_count: 1, lastJobId: `j${wins.indexOf(true)}` });
      }
    });

    suite.test('race.lease', 'owners racing for one free lease: exactly one holds it', async (t) => {
      const racers = await t.racers(RACERS);
      for (let round = 0; round < ROUNDS; round++) {
        const name = t.name();
        const held = await Promise.all(Array.from({ length: 8 }, (_, i) => pick(racers, i).leaseAcquire({ name, owner: `o${i}`, ttlMs: 10_000, now: T0 })));
        expect(held.filter(Boolean), `round ${round}`).toHaveLength(1);
        const owner = `o${held.indexOf(true)}`;
        expect(await t.driver.leaseAcquire({ name, owner, ttlMs: 10_000, now: T0 + 1 })).toBe(true);
        expect(await t.driver.leaseAcquire({ name, owner: 'late', ttlMs: 10_000, now: T0 + 1 })).toBe(false);
      }
    });

    suite.test(
      'race.unique-insert',
      'inserts racing with one unique key (reject): exactly one is stored (a driver declaring uniqueStrength strong)',
      async (t) => {
        if (t.driver.capabilities.uniqueStrength !== 'strong')
          throw new Error('this case needs uniqueStrength strong; skip it with a written reason otherwise');
        const racers = await t.racers(RACERS);
        const q = t.heldQueue();
        for (let round = 0; round < ROUNDS; round++) {
          const key = t.name();
          const results = await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              pick(racers, i).jobInsert({
                jobs: [t.job(q, {}, { uniqueKey: key, uniqueStates: ['available'], uniqueOnConflict: 'reject' })],
                now: T0,
                nowIso: iso(T0),
              }),
            ),
          );
          expect(
            results.filter((r) => r.ok),
            `round ${round}`,
          ).toHaveLength(1);
          for (const r of results.filter((r) => !r.ok)) expect(r).toMatchObject({ ok: false, index: 0, reason: 'unique' });
        }
        expect((await t.driver.jobCounts({ queue: q })).available).toBe(ROUNDS);
      },
    );

    suite.test('race.workflow-save', 'saves racing at one workflow version: exactly one applies, with its jobs, and the losers insert nothing', async (t) => {
      const racers = await t.racers(RACERS);
      const q = t.queue();
      const id = t.name();
      expect(await t.driver.workflowSave({ workflow: { id, version: 1 }, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(true);
      const inserts = Array.from({ length: 8 }, () => t.job(q, { workflow_id: id }));
      const saved = await Promise.all(
        inserts.map((job, i) =>
          pick(racers, i).workflowSave({ workflow: { id, version: 2, by: i }, expectVersion: 1, insert: [job], now: T0, nowIso: iso(T0) }),
        ),
      );
      expect(saved.filter(Boolean)).toHaveLength(1);
      const winner = saved.indexOf(true);
      expect(await t.driver.workflowGet(id)).toEqual({ id, version: 2, by: winner });
      expect(await t.claimIds([q], 10)).toEqual([inserts[winner]!.job.id]);
    });
  });
}
