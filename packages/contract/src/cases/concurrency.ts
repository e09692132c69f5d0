/**
 * Races: concurrent claimers never share a job; concurrent terminal operations on one job have exactly one
 * winner; unique inserts, dead-letter retries and activations race safely. Driver-level races run when the
 * subject exposes its driver.
 */
import { expect } from 'vitest';
import type { Job } from '@ojskit/core';
import { toTimestamp } from '@ojskit/core/formats';
import { allowedFrom } from '@ojskit/core/lifecycle';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { outcomeOf, settle } from '../support/errors.js';

const JOBS = 40;
const CLAIMERS = 12;

async function pushMany(t: CaseContext, queue: string, count: number): Promise<string[]> {
  const res = await t.api.enqueueBatch({ jobs: Array.from({ length: count }, (_, i) => ({ type: 'contract.job', args: [i], options: { queue } })) });
  return res.jobs.map((j) => j.id);
}

/** Every id claimed exactly once; returns the multiset check and drains leftovers with one more fetch. */
async function expectExactlyOnce(t: CaseContext, queue: string, ids: string[], claimedLists: string[][]): Promise<void> {
  const claimed = claimedLists.flat();
  expect(new Set(claimed).size, 'no job is returned to two claimers').toBe(claimed.length);
  const rest = (await t.api.fetch({ queues: [queue], count: ids.length })).jobs.map((j) => j.id);
  expect([...claimed, ...rest].sort()).toEqual([...ids].sort());
  for (const id of claimed) await t.expectState(id, 'active');
}

/** How many outcomes are `ok`, and whether every loser got one of `loserCodes`. */
function tally(outcomes: string[], loserCodes: string[]): { wins: number; badLosers: string[] } {
  return { wins: outcomes.filter((o) => o === 'ok').length, badLosers: outcomes.filter((o) => o !== 'ok' && !loserCodes.includes(o)) };
}

export function registerConcurrencyCases(suite: Suite): void {
  suite.group('concurrency', () => {
    suite.test('concurrency.claim-race-api', `${CLAIMERS} concurrent FETCHes for ${JOBS} jobs: each job claimed exactly once`, async (t) => {
      const queue = t.queue();
      const ids = await pushMany(t, queue, JOBS);
      const lists = await Promise.all(
        Array.from({ length: CLAIMERS }, (_, i) => t.api.fetch({ queues: [queue], count: 5, worker_id: `racer-${i}` }).then((r) => r.jobs.map((j) => j.id))),
      );
      await expectExactlyOnce(t, queue, ids, lists);
    });

    suite.test('concurrency.claim-race-driver', `${CLAIMERS} concurrent driver claims for ${JOBS} jobs: each job claimed exactly once`, async (t) => {
      if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
      const driver = t.driver;
      const queue = t.queue();
      const ids = await pushMany(t, queue, JOBS);
      const now = t.now();
      const lists = await Promise.all(
        Array.from({ length: CLAIMERS }, (_, i) =>
          driver.jobClaim({ queues: [queue], limit: 5, workerId: `racer-${i}`, now, nowIso: toTimestamp(now) }).then((r) => r.jobs.map((j) => j.id)),
        ),
      );
      await expectExactlyOnce(t, queue, ids, lists);
    });

    suite.test('concurrency.terminal-race', 'racing ACK, FAIL and CANCEL on one active job: exactly one wins, the others get 409', async (t) => {
      const queue = t.queue();
      for (let round = 0; round < 10; round++) {
        const job = await INTO.active(t, queue, { options: { retry: { max_attempts: 1 } } });
        const settled = await Promise.all([
          settle(t.api.ack({ job_id: job.id, result: 'ack' })),
          settle(t.api.nack({ job_id: job.id, error: { code: 'e', message: 'nack' } })),
          settle(t.api.cancelJob(job.id)),
        ]);
        const outcomes = settled.map((s) => (s === 'ok' ? s : s.code));
        const { wins, badLosers } = tally(outcomes, ['conflict']);
        expect(wins, `outcomes ${outcomes.join(', ')}`).toBe(1);
        expect(badLosers).toEqual([]);
        const winner = ['completed', 'discarded', 'cancelled'][outcomes.indexOf('ok')];
        const stored = await t.job(job.id);
        expect(stored.state).toBe(winner);
        if (winner !== 'completed') expect(stored).not.toHaveProperty('result');
        // A loser was refused because the winner had moved the job: its error names that state, not a stale one.
        for (const loser of settled) if (loser !== 'ok') expect(loser.details?.current_state, loser.message).toBe(winner);
      }
    });

    suite.test('concurrency.ack-vs-rescue', 'an ACK racing the rescuer on an overdue job: one outcome, never both', async (t) => {
      const queue = t.queue();
      const jobs: Job[] = [];
      for (let i = 0; i < 10; i++) jobs.push(await t.push(queue));
      await t.api.fetch({ queues: [queue], count: 10, visibility_timeout_ms: 1_000 });
      t.clock.advance(1_001);
      const [outcomes] = await Promise.all([Promise.all(jobs.map((j) => outcomeOf(t.api.ack({ job_id: j.id })))), t.maintenance()]);
      await t.dispatch.settle();
      for (const [i, job] of jobs.entries()) {
        const stored = await t.job(job.id);
        if (outcomes[i] === 'ok') {
          expect(stored.state).toBe('completed');
          expect(stored).not.toHaveProperty('error');
        } else {
          expect(outcomes[i]).toBe('conflict');
          expect(stored.state).toBe(t.dispatch.ready);
          expect(stored.error?.type).toBe('visibility_timeout');
        }
      }
    });

    suite.test('concurrency.cancel-race', 'concurrent CANCELs of one job: exactly one succeeds', async (t) => {
      const queue = t.queue();
      for (const state of allowedFrom('cancelled', 'cancel')) {
        const job = await INTO[state](t, queue);
        const outcomes = await Promise.all(Array.from({ length: 6 }, () => outcomeOf(t.api.cancelJob(job.id))));
        const { wins, badLosers } = tally(outcomes, ['conflict']);
        expect(wins, `cancel from ${state}: ${outcomes.join(', ')}`).toBe(1);
        expect(badLosers).toEqual([]);
      }
    });

    suite.test('concurrency.activate-race', 'concurrent ACTIVATEs of one pending job: exactly one succeeds', async (t) => {
      const queue = t.queue();
      const job = await INTO.pending(t, queue);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => outcomeOf(t.api.activateJob(job.id))));
      expect(tally(outcomes, ['conflict'])).toEqual({ wins: 1, badLosers: [] });
      expect(await t.claimIds([queue], 5)).toEqual([job.id]);
    });

    suite.test('concurrency.dead-letter-retry-race', 'concurrent dead-letter retries of one job: exactly one succeeds', async (t) => {
      const queue = t.queue();
      const job = await INTO.discarded(t, queue);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => outcomeOf(t.api.retryDeadLetter(job.id))));
      expect(tally(outcomes, ['not_found', 'conflict'])).toEqual({ wins: 1, badLosers: [] });
      expect(await t.claimIds([queue], 5)).toEqual([job.id]);
    });

    suite.test('concurrency.unique-insert-race', 'concurrent unique inserts (reject): one job stored, the rest 409 duplicate', async (t) => {
      const queue = t.queue();
      const { unique_job_strength } = await t.api.manifest();
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () => outcomeOf(t.api.enqueue({ type: 'contract.job', args: [queue], options: { queue, unique: {} } }))),
      );
      const { wins, badLosers } = tally(outcomes, ['duplicate']);
      expect(badLosers).toEqual([]);
      // Best-effort uniqueness may let a duplicate through under a race; strong uniqueness may not.
      if (unique_job_strength === 'strong') expect(wins).toBe(1);
      else expect(wins).toBeGreaterThanOrEqual(1);
      await t.expectStats(queue, { available: wins });
    });

    suite.test(
      'concurrency.ordered-calls',
      'a driver declaring orderedCalls: a claim made right after an insert, before the insert settles, claims the inserted job',
      async (t) => {
        if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
        if (t.driver.capabilities.orderedCalls !== true)
          throw new Error('this case needs a driver declaring capabilities.orderedCalls; skip it with a reason otherwise');
        const driver = t.driver;
        const queue = t.queue();
        for (let round = 0; round < 5; round++) {
          const now = t.now();
          // The engine hands the insert to the driver before its first await; the claim follows it at once.
          const enqueuing = t.api.enqueue({ type: 'contract.job', args: [round], options: { queue } });
          const claiming = driver.jobClaim({ queues: [queue], limit: 10, workerId: 'ordered', now, nowIso: toTimestamp(now) });
          const [{ job }, claimed] = await Promise.all([enqueuing, claiming]);
          expect(claimed.jobs.map((j) => j.id)).toEqual([job.id]);
        }
      },
    );

    suite.test('concurrency.driver-transition-race', 'concurrent guarded driver transitions of one job: exactly one wins', async (t) => {
      if (!t.driver) throw new Error('this case needs subject.driver; skip it with a reason for transports without one');
      const driver = t.driver;
      const job = await INTO.active(t, t.queue());
      const nowIso = t.iso();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          driver.jobTransition({
            id: job.id,
            from: allowedFrom('completed', 'ack'),
            to: 'completed',
            expect: { attempt: 1 },
            set: { completed_at: nowIso, result: i },
          }),
        ),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      for (const loser of results.filter((r) => !r.ok)) expect(loser).toMatchObject({ ok: false, state: 'completed' });
      const stored = await t.job(job.id);
      expect(stored.state).toBe('completed');
      expect(results.indexOf(winners[0]!)).toBe(stored.result);
    });
  });
}
