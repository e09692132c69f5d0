/**
 * Per-job history (ojskit extension `x-job-history`): one line per transition, written with it. Checked against
 * the transitions the events report (none missing, none extra), through every trigger, under races, after the
 * job is terminal, bounded, and gone with the job.
 */
import { expect } from 'vitest';
import { TRANSITION_EVENT_TYPES, type JobHistoryEntry, type JobState } from '@ojskit/core';
import { MAX_HISTORY_ENTRIES } from '@ojskit/core/driver';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError, settle } from '../support/errors.js';

const RETRY_EACH_SECOND = { max_attempts: 3, initial_interval: 'PT1S', backoff_coefficient: 1, jitter: false } as const;

async function historyOf(t: CaseContext, id: string): Promise<JobHistoryEntry[]> {
  const res = await t.api.getJobHistory(id);
  expect(res.job_id).toBe(id);
  return res.history;
}

/** `[from, to]` of each line. */
function moves(history: readonly JobHistoryEntry[]): Array<[JobState | null, JobState]> {
  return history.map((line) => [line.from, line.to]);
}

/** `[to, at]` pairs in one canonical order, for comparing as sets. */
function sortedMoves(moves: ReadonlyArray<readonly [unknown, string]>): Array<[unknown, string]> {
  return moves.map(([to, at]): [unknown, string] => [to, at]).sort((a, b) => `${a[1]}|${String(a[0])}`.localeCompare(`${b[1]}|${String(b[0])}`));
}

/**
 * Fails unless the job's history lines and its transition events name the same transitions (`[to, at]`), none
 * missing, none extra. Compared as sets: events reach a poll through the backend's event transport, where a
 * dispatch log's events (published by its dispatcher) and the engine's own arrive in their own order; the lines'
 * order is checked by each case. Waits (a few seconds at most) for the events still on their way.
 */
async function expectEventsMatchLines(t: CaseContext, id: string): Promise<void> {
  const lines = sortedMoves((await historyOf(t, id)).map((l) => [l.to, l.at]));
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { events } = await t.api.pollEvents({ jobId: id, limit: 1_000 });
    const moves = sortedMoves(events.filter((e) => TRANSITION_EVENT_TYPES.has(e.type)).map((e) => [e.data['state'], e.time]));
    if (moves.length >= lines.length || Date.now() >= deadline) {
      expect(moves, id).toEqual(lines);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ids of this file's cases: a backend whose driver does not record history skips them, with its reason. */
export const HISTORY_CASE_IDS = [
  'history.advertised',
  'history.lifecycle',
  'history.triggers',
  'history.race',
  'history.kept-bounded-pruned',
  'history.unknown-job',
  'history.queue-opt-out',
] as const;

/** `skip` entries for every history case, each with `reason`. */
export function skipHistoryCases(reason: string): Record<string, string> {
  return Object.fromEntries(HISTORY_CASE_IDS.map((id) => [id, reason]));
}

export function registerHistoryCases(suite: Suite): void {
  suite.group('history', () => {
    suite.test('history.advertised', 'the manifest advertises x-job-history and capabilities.job_history', async (t) => {
      const manifest = await t.api.manifest();
      expect(manifest.capabilities['job_history']).toBe(true);
      const experimental = (manifest.extensions as { experimental: Array<{ name: string }> }).experimental;
      expect(experimental.map((e) => e.name)).toContain('x-job-history');
    });

    suite.test('history.lifecycle', 'push, claim, fail, promotion, claim, ack: one line each, timed, with attempt, worker and reason', async (t) => {
      const queue = t.queue();
      const pushedAt = t.iso();
      const job = await t.push(queue, { options: { retry: RETRY_EACH_SECOND } });
      t.clock.advance(10);
      const claimedAt = t.iso();
      await t.claim(queue, { worker_id: 'w1' });
      t.clock.advance(10);
      const failedAt = t.iso();
      await t.api.nack({ job_id: job.id, worker_id: 'w1', error: { code: 'smtp_down', type: 'SmtpError', message: 'down' } });
      t.clock.advance(1_000);
      const retriedAt = t.iso();
      await t.claim(queue, { worker_id: 'w2' });
      t.clock.advance(10);
      const ackedAt = t.iso();
      await t.api.ack({ job_id: job.id, worker_id: 'w2', result: 1 });

      // With a dispatch log, each claim is preceded by the log's delivery line (DispatchView.historyLines).
      expect(await historyOf(t, job.id)).toEqual(
        t.dispatch.historyLines([
          { at: pushedAt, from: null, to: 'available', trigger: 'push', attempt: 0 },
          { at: claimedAt, from: 'available', to: 'active', trigger: 'fetch', attempt: 1, worker_id: 'w1' },
          { at: failedAt, from: 'active', to: 'retryable', trigger: 'fail', attempt: 1, worker_id: 'w1', reason: 'SmtpError' },
          { at: retriedAt, from: 'retryable', to: 'available', trigger: 'timer', attempt: 1 },
          { at: retriedAt, from: 'available', to: 'active', trigger: 'fetch', attempt: 2, worker_id: 'w2' },
          { at: ackedAt, from: 'active', to: 'completed', trigger: 'ack', attempt: 2, worker_id: 'w2' },
        ]),
      );
      // The same transitions as the events report, at the same instants.
      await expectEventsMatchLines(t, job.id);
    });

    suite.test(
      'history.triggers',
      'reclaim, requeue, cancel (with its source), expiry, activate, dead-letter retry and unique replace each leave their line',
      async (t) => {
        const queue = t.queue();
        const lost = await t.push(queue);
        await t.claim(queue, { worker_id: 'w1', visibility_timeout_ms: 1_000 });
        await t.advance(2_000);
        const requeueQueue = t.queue();
        const handedBack = await t.push(requeueQueue);
        await t.claim(requeueQueue, { worker_id: 'w1' });
        await t.api.nack({ job_id: handedBack.id, worker_id: 'w1', requeue: true });
        const cancelled = await INTO.active(t, t.queue());
        await t.api.cancelJob(cancelled.id);
        const expired = await t.push(t.queue(), { options: { expires_at: t.iso(1_000), scheduled_at: t.iso(500) } });
        await t.advance(2_000);
        const staged = await INTO.pending(t, t.queue());
        await t.api.activateJob(staged.id);
        const dead = await INTO.discarded(t, t.queue());
        await t.api.retryDeadLetter(dead.id);
        const uniqueQueue = t.queue();
        const first = await t.push(uniqueQueue, { args: [uniqueQueue], options: { unique: { on_conflict: 'replace' } } });
        // with a dispatch log the replaced job is `pending` once delivered: settled, so its line says which
        await t.dispatch.settle();
        await t.push(uniqueQueue, { args: [uniqueQueue], options: { unique: { on_conflict: 'replace' } } });
        // Every job left ready is delivered (with a dispatch log) before the lines are read; each job's own last
        // lines are read without the deliveries (DispatchView.ownLines), which history.lifecycle checks.
        await t.dispatch.settle();
        const own = async (id: string) => t.dispatch.ownLines(await historyOf(t, id));

        expect((await own(lost.id)).slice(-1)[0]).toMatchObject({
          from: 'active',
          to: 'available',
          trigger: 'visibility_timeout',
          reason: 'visibility_timeout',
          worker_id: 'w1',
          attempt: 1,
        });
        expect((await own(handedBack.id)).slice(-1)[0]).toMatchObject({
          from: 'active',
          to: 'available',
          trigger: 'requeue',
          worker_id: 'w1',
          attempt: 0,
        });
        expect((await own(cancelled.id)).slice(-1)[0]).toMatchObject({
          from: 'active',
          to: 'cancelled',
          trigger: 'cancel',
          reason: 'client',
          worker_id: 'contract-worker',
        });
        expect(moves(await historyOf(t, expired.id))).toEqual([
          [null, 'scheduled'],
          ['scheduled', 'discarded'],
        ]);
        expect((await historyOf(t, expired.id))[1]).toMatchObject({ trigger: 'expiry' });
        expect(await own(staged.id)).toMatchObject([
          { from: null, to: 'pending', trigger: 'push' },
          { from: 'pending', to: 'available', trigger: 'activate' },
        ]);
        expect((await own(dead.id)).slice(-2)).toMatchObject([
          { from: 'active', to: 'discarded', trigger: 'fail' },
          { from: 'discarded', to: 'available', trigger: 'dead_letter_retry', attempt: 0 },
        ]);
        expect((await own(first.id)).slice(-1)[0]).toMatchObject({ from: t.dispatch.ready, to: 'cancelled', trigger: 'unique_replace' });
        // Every line matches an event of the same transition, and the reverse.
        for (const id of [lost.id, handedBack.id, cancelled.id, expired.id, staged.id, dead.id, first.id]) await expectEventsMatchLines(t, id);
      },
    );

    suite.test('history.race', 'racing ACK, FAIL and CANCEL, and racing claimers: exactly one line for the transition that happened', async (t) => {
      const queue = t.queue();
      for (let round = 0; round < 5; round++) {
        const job = await INTO.active(t, queue, { options: { retry: { max_attempts: 1 } } });
        await Promise.all([
          settle(t.api.ack({ job_id: job.id })),
          settle(t.api.nack({ job_id: job.id, error: { code: 'e', message: 'nack' } })),
          settle(t.api.cancelJob(job.id)),
        ]);
        const stored = await t.job(job.id);
        expect(moves(await historyOf(t, job.id))).toEqual(
          t.dispatch.historyMoves([
            [null, 'available'],
            ['available', 'active'],
            ['active', stored.state],
          ]),
        );
      }
      const claimQueue = t.queue();
      const { jobs } = await t.api.enqueueBatch({
        jobs: Array.from({ length: 20 }, (_, i) => ({ type: 'contract.job', args: [i], options: { queue: claimQueue } })),
      });
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => t.api.fetch({ queues: [claimQueue], count: 4, worker_id: `racer-${i}` })));
      const holder = new Map(claims.flatMap((c) => c.jobs.map((j) => [j.id, j.worker_id] as const)));
      await t.dispatch.settle();
      for (const { id } of jobs) {
        const history = await historyOf(t, id);
        const worker = holder.get(id);
        if (worker === undefined) expect(moves(history)).toEqual(t.dispatch.historyMoves([[null, 'available']]));
        else
          expect(history).toMatchObject(
            t.dispatch.historyLines([
              { from: null, to: 'available' },
              { from: 'available', to: 'active', worker_id: worker },
            ]),
          );
      }
    });

    suite.test(
      'history.kept-bounded-pruned',
      'kept after the job is terminal, the newest lines past the bound, gone when retention prunes the job',
      async (t) => {
        const queue = t.queue();
        const attempts = Math.ceil(MAX_HISTORY_ENTRIES / 3) + 2;
        const job = await t.push(queue, { options: { retry: { ...RETRY_EACH_SECOND, max_attempts: attempts } } });
        for (let attempt = 1; attempt <= attempts; attempt++) {
          await t.claim(queue);
          await t.api.nack({ job_id: job.id, error: { code: 'e', message: `attempt ${attempt}` } });
          t.clock.advance(1_000);
        }
        await t.expectState(job.id, 'discarded');
        // push, then fetch + fail per attempt, and a promotion between attempts (and with a dispatch log, the
        // delivery before each fetch).
        const total = t.dispatch.historyMoves([
          [null, 'available'],
          ...Array.from({ length: attempts }, (_, i): Array<[JobState | null, JobState]> => [
            ...(i > 0 ? ([['retryable', 'available']] as Array<[JobState, JobState]>) : []),
            ['available', 'active'],
            ['active', i < attempts - 1 ? 'retryable' : 'discarded'],
          ]).flat(),
        ]).length;
        const res = await t.api.getJobHistory(job.id);
        expect(res.history).toHaveLength(MAX_HISTORY_ENTRIES);
        expect(res.dropped).toBe(total - MAX_HISTORY_ENTRIES);
        expect(res.history.at(-1)).toMatchObject({ from: 'active', to: 'discarded', trigger: 'fail', attempt: attempts });
        await t.advance(8 * 24 * 3_600_000);
        await expectOjsError(t.api.getJobHistory(job.id), { code: 'not_found' });
      },
    );

    suite.test('history.unknown-job', 'an unknown id → 404 not_found', async (t) => {
      await expectOjsError(t.api.getJobHistory('019a0000-0000-7000-8000-000000000000'), { code: 'not_found' });
    });

    suite.test(
      'history.queue-opt-out',
      'a queue configured with history: false records no line for new transitions, other queues still do, and opting back in records again',
      async (t) => {
        const quiet = t.queue();
        const loud = t.queue();
        expect((await t.api.getQueueConfig(quiet)).history).toBe(true);
        await expectOjsError(t.api.setQueueConfig(quiet, { history: 'no' }), { code: 'invalid_request', details: { field: 'history' } });
        // A job of the queue from before the opt-out keeps its lines (with a dispatch log, its delivery's too:
        // settled first); its later transitions get none.
        const before = await t.push(quiet);
        await t.dispatch.settle();
        expect((await t.api.setQueueConfig(quiet, { history: false })).history).toBe(false);
        expect((await t.api.getQueueConfig(quiet)).history).toBe(false);
        const during = await t.push(quiet);
        const other = await t.push(loud);
        // One claim over both queues: the opted-out queue's moves write nothing, the other queue's do.
        const claimed = await t.api.fetch({ queues: [quiet, loud], count: 3, worker_id: 'w1' });
        expect(claimed.jobs.map((j) => j.id).sort()).toEqual([before.id, during.id, other.id].sort());
        for (const { id } of claimed.jobs) await t.api.ack({ job_id: id, worker_id: 'w1', result: 1 });
        const beforeHistory = await t.api.getJobHistory(before.id);
        expect(moves(beforeHistory.history)).toEqual(t.dispatch.historyMoves([[null, 'available']]));
        expect(beforeHistory.recording).toBe(false);
        expect(await t.api.getJobHistory(during.id)).toMatchObject({ history: [], dropped: 0, recording: false });
        const otherHistory = await t.api.getJobHistory(other.id);
        expect(moves(otherHistory.history)).toEqual(
          t.dispatch.historyMoves([
            [null, 'available'],
            ['available', 'active'],
            ['active', 'completed'],
          ]),
        );
        expect(otherHistory.recording).toBe(true);
        // The opt-out holds for every trigger: a failure, a promotion, a cancel.
        const failing = await t.push(quiet, { options: { retry: RETRY_EACH_SECOND } });
        await t.claim(quiet, { worker_id: 'w1' });
        await t.api.nack({ job_id: failing.id, worker_id: 'w1', error: { code: 'e', message: 'fail' } });
        await t.advance(1_000);
        await t.api.cancelJob(failing.id);
        expect((await t.api.getJobHistory(failing.id)).history).toEqual([]);
        // Claimed while opted out, acknowledged after: the ACK's line is written, the rest never was.
        const straddle = await t.push(quiet);
        await t.claim(quiet, { worker_id: 'w3' });
        // Opted back in (the setting absent again): lines again, from the next transition on.
        expect((await t.api.setQueueConfig(quiet, {})).history).toBe(true);
        await t.api.ack({ job_id: straddle.id, worker_id: 'w3', result: 1 });
        expect((await t.api.getJobHistory(straddle.id)).history).toMatchObject([
          { from: 'active', to: 'completed', trigger: 'ack', attempt: 1, worker_id: 'w3' },
        ]);
        const after = await t.push(quiet);
        await t.claim(quiet, { worker_id: 'w2' });
        await t.api.ack({ job_id: after.id, worker_id: 'w2', result: 1 });
        const afterHistory = await t.api.getJobHistory(after.id);
        expect(moves(afterHistory.history)).toEqual(
          t.dispatch.historyMoves([
            [null, 'available'],
            ['available', 'active'],
            ['active', 'completed'],
          ]),
        );
        expect(afterHistory.recording).toBe(true);
        expect((await t.api.getJobHistory(during.id)).recording).toBe(true);
        expect((await t.api.getJobHistory(during.id)).history).toEqual([]);
      },
    );
  });
}
