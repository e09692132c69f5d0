/**
 * `jobCompleteMany` (ACK): core's `EFFECTS.ack` applied, its guards (state, attempt, worker) refusing with the
 * state that holds and changing nothing, and batches of mixed outcomes answered item by item.
 */
import { expect } from 'vitest';
import { JOB_STATES, type JobError } from '@ojskit/core';
import { EFFECTS, STATE_ROLES } from '@ojskit/core/lifecycle';
import { DRIVER_JOB_TYPE, iso, T0, type DriverCaseContext } from '../context.js';
import type { DriverSuite } from '../harness.js';
import { expectEffectApplied } from './effect-applied.js';

const ACKED_AT = T0 + 7;
const ACTIVE = STATE_ROLES.claimed;

/** `count` jobs of one queue claimed by `w1` at T0 (attempt 1), in claim order. */
async function activeJobs(
  t: DriverCaseContext,
  count: number,
  fields: Parameters<DriverCaseContext['job']>[1] = {},
): Promise<{ ids: string[]; queue: string }> {
  const queue = t.queue();
  const jobs = Array.from({ length: count }, () => t.job(queue, fields));
  await t.insert(jobs);
  const ids = await t.claimIds([queue], count);
  expect(ids).toHaveLength(count);
  return { ids, queue };
}

const complete = (t: DriverCaseContext, jobs: Parameters<DriverCaseContext['driver']['jobCompleteMany']>[0]['jobs'], returning?: 'job' | 'summary') =>
  t.driver.jobCompleteMany({ jobs, now: ACKED_AT, nowIso: iso(ACKED_AT), ...(returning ? { returning } : {}) });

export function registerCompleteCases(suite: DriverSuite): void {
  suite.group('jobCompleteMany', () => {
    suite.test(
      'complete.effects',
      'applies EFFECTS.ack: completed, its stamps, the result stored, the reservation, error and worker gone; the job leaves the active index',
      async (t) => {
        const error: JobError = { code: 'boom', type: 'boom', message: 'first attempt', attempt: 1, occurred_at: iso(T0) };
        const {
          ids: [id],
          queue,
        } = await activeJobs(t, 1, { error, errors: [error] });
        const [result] = await complete(t, [{ id: id!, attempt: 1, workerId: 'w1', result: { ok: [1, 'two'] } }]);
        expect(result).toMatchObject({ ok: true, from: ACTIVE, job: { id, state: EFFECTS.ack.to, result: { ok: [1, 'two'] } } });
        const stored = await t.stored(id!);
        expect(stored.job).toEqual((result as { job: unknown }).job);
        expectEffectApplied(stored, EFFECTS.ack, ACKED_AT, 'ack');
        expect(stored.job.errors, 'the history is kept').toEqual([error]);
        expect(stored.job.attempt).toBe(1);
        expect(await t.driver.jobCounts({ queue })).toMatchObject({ [ACTIVE]: 0, [EFFECTS.ack.to]: 1 });
        expect(await t.driver.jobListOverdue({ now: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]);
        // retention sees it as finished at the ACK's instant
        expect(await t.driver.jobPrune({ before: ACKED_AT, limit: 10 })).toBe(0);
        expect(await t.driver.jobPrune({ before: ACKED_AT + 1, limit: 10 })).toBe(1);
      },
    );

    suite.test('complete.result-presence', 'stores the result only when the item has one: null is a result, an absent key is none', async (t) => {
      const {
        ids: [none, nul],
      } = await activeJobs(t, 2);
      expect((await complete(t, [{ id: none! }, { id: nul!, result: null }])).map((r) => r.ok)).toEqual([true, true]);
      expect((await t.stored(none!)).job.result).toBeUndefined();
      expect((await t.stored(nul!)).job.result).toBeNull();
    });

    suite.test(
      'complete.guards',
      'refuses a wrong attempt, another worker or a job not active, reporting the state that holds and the job, changing nothing; an unknown id reports null',
      async (t) => {
        const {
          ids: [id],
          queue,
        } = await activeJobs(t, 1);
        const before = await t.stored(id!);
        const counts = await t.driver.jobCounts({ queue });
        for (const item of [
          { id: id!, attempt: 2 },
          { id: id!, attempt: 0 },
          { id: id!, workerId: 'w2' },
          { id: id!, attempt: 2, workerId: 'w1' },
        ]) {
          for (const returning of ['job', 'summary'] as const) {
            expect(await complete(t, [item], returning), JSON.stringify(item)).toEqual([{ ok: false, state: ACTIVE, job: before.job }]);
          }
        }
        expect(await t.stored(id!)).toEqual(before);
        expect(await t.driver.jobCounts({ queue })).toEqual(counts);
        expect(await complete(t, [{ id: '00000000-0000-7000-8000-000000000000' }])).toEqual([{ ok: false, state: null }]);
        // every other state refuses, whatever the guards say
        const held = t.heldQueue();
        for (const state of JOB_STATES.filter((s) => s !== ACTIVE)) {
          const s = t.job(held, { state });
          await t.insert([s]);
          const stored = await t.stored(s.job.id);
          expect(await complete(t, [{ id: s.job.id }]), state).toMatchObject([{ ok: false, state, job: { id: s.job.id, state } }]);
          expect(await t.stored(s.job.id), state).toEqual(stored);
        }
      },
    );

    suite.test('complete.worker-guard-without-worker', 'skips the worker guard when the active job has no worker_id', async (t) => {
      const q = t.queue();
      const s = t.job(q, { state: ACTIVE, worker_id: undefined });
      await t.insert([s]);
      expect(await complete(t, [{ id: s.job.id, workerId: 'anyone', attempt: 1 }])).toMatchObject([{ ok: true, from: ACTIVE }]);
    });

    suite.test(
      'complete.batch-mixed',
      'a batch answers item by item in order: completed, refused by attempt, unknown, not active, the same id twice (the second sees the first); summaries on request, a workflow member in full',
      async (t) => {
        const q = t.queue();
        const plain = [t.job(q), t.job(q), t.job(q)];
        const member = t.job(q, { workflow_id: t.name() });
        const waiting = t.job(t.heldQueue());
        await t.insert([...plain, member]);
        await t.claim([q], 4);
        await t.insert([waiting]);
        const [a, b, c] = plain.map((s) => s.job.id) as [string, string, string];
        const results = await complete(
          t,
          [
            { id: a, attempt: 1, result: 'a' },
            { id: b, attempt: 2 },
            { id: '00000000-0000-7000-8000-000000000000' },
            { id: waiting.job.id },
            { id: c, workerId: 'w1' },
            { id: a, attempt: 1, result: 'again' },
            { id: member.job.id, result: [1] },
          ],
          'summary',
        );
        // a summary may carry started_at (JobSummary): matched, not equalled
        expect(results[0]).toMatchObject({ ok: true, from: ACTIVE, summary: { id: a, type: DRIVER_JOB_TYPE, queue: q, state: EFFECTS.ack.to, attempt: 1 } });
        expect(results[1]).toMatchObject({ ok: false, state: ACTIVE });
        expect(results[2]).toEqual({ ok: false, state: null });
        expect(results[3]).toMatchObject({ ok: false, state: waiting.job.state });
        expect(results[4]).toMatchObject({ ok: true, from: ACTIVE, summary: { id: c } });
        expect(results[5]).toMatchObject({ ok: false, state: EFFECTS.ack.to });
        expect(results[6]).toEqual({ ok: true, from: ACTIVE, job: (await t.stored(member.job.id)).job });
        expect((results[6] as { job: { workflow_id?: string; result?: unknown } }).job).toMatchObject({ workflow_id: member.job.workflow_id, result: [1] });
        expect((await t.stored(a)).job.result).toBe('a');
        expect((await t.stored(b)).job.state).toBe(ACTIVE);
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ [ACTIVE]: 1, [EFFECTS.ack.to]: 3 });
        expect(await complete(t, [])).toEqual([]);
      },
    );
  });
}
