/**
 * The transition table, case by case: one case per row of core's `TRANSITIONS` (generated from the table,
 * so a new row without a scenario fails), and one per (state, operation) pair the table does not allow.
 */
import { expect } from 'vitest';
import { JOB_STATES, type Job, type JobState } from '@ojskit/core';
import { STATE_ROLES, TRANSITIONS, type Transition, type Trigger } from '@ojskit/core/lifecycle';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';
import { expectServerTimestamp } from '../support/formats.js';

/**
 * Drives a fresh job through one row: into `from`, then fires the trigger; returns the job afterwards, or
 * `null` when the protocol lets this backend refuse the row (and the scenario checked the fallback instead).
 */
type Scenario = (t: CaseContext, queue: string) => Promise<Job | null>;

/** The state a PUSH, a timer or a requeue makes a job ready in. */
const READY: JobState = STATE_ROLES.promoted;

const key = (from: JobState | null, trigger: Trigger, to: JobState): string => `${from ?? 'new'}:${trigger}:${to}`;

const ONE_ATTEMPT = { options: { retry: { max_attempts: 1 } } };
/** A unique policy that replaces; the args carry the queue name so cases sharing a store never collide. */
const uniqueReplace = (queue: string) => ({ args: ['unique-replace', queue], options: { unique: { on_conflict: 'replace' } } });

async function replaceWithNewer(t: CaseContext, queue: string, from: JobState): Promise<Job> {
  const old = await INTO[from](t, queue, uniqueReplace(queue));
  const newer = await t.push(queue, uniqueReplace(queue));
  expect(newer.id).not.toBe(old.id);
  const after = await t.job(old.id);
  expect(after.cancelled_at, 'replaced job carries cancelled_at').toBeDefined();
  return after;
}

async function visibilityReclaim(t: CaseContext, queue: string, extra: Record<string, unknown>): Promise<Job> {
  const job = await t.push(queue, extra);
  await t.claim(queue, { visibility_timeout_ms: 1_000 });
  await t.advance(1_001);
  const after = await t.job(job.id);
  expect(after.error?.type).toBe('visibility_timeout');
  return after;
}

async function workerDeath(t: CaseContext, queue: string, extra: Record<string, unknown>): Promise<Job> {
  const job = await t.push(queue, extra);
  const worker = `dying-${t.uniqueName()}`;
  await t.claim(queue, { worker_id: worker });
  await t.api.heartbeat({ worker_id: worker, active_job_ids: [job.id] });
  // Silent for longer than the default 30 s death threshold, well inside the 1 800 s visibility deadline.
  await t.advance(31_000);
  const after = await t.job(job.id);
  expect(after.error?.type).toBe('worker_death');
  return after;
}

async function executionTimeout(t: CaseContext, queue: string, maxAttempts: number): Promise<Job> {
  const job = await t.push(queue, { options: { timeout_ms: 1_000, retry: { max_attempts: maxAttempts } } });
  await t.claim(queue);
  await t.advance(1_001);
  const after = await t.job(job.id);
  expect(after.error?.code).toBe('timeout');
  expect(after.error?.type).toBe('timeout');
  return after;
}

const cancelFrom =
  (from: JobState): Scenario =>
  async (t, queue) => {
    const job = await INTO[from](t, queue);
    const res = await t.api.cancelJob(job.id);
    expect(res.job.previous_state).toBe(from);
    expectServerTimestamp(res.job.cancelled_at, 'cancelled_at');
    return t.job(job.id);
  };

const SCENARIOS: Record<string, Scenario> = {
  [key(null, 'push', 'available')]: async (t, queue) => {
    const job = await t.push(queue);
    expect(job.enqueued_at).toBe(t.iso());
    expect(job.attempt).toBe(0);
    return t.job(job.id);
  },
  [key(null, 'push', 'scheduled')]: async (t, queue) => {
    const job = await t.push(queue, { options: { scheduled_at: '+PT1M' } });
    expect(job.enqueued_at).toBeUndefined();
    return t.job(job.id);
  },
  [key(null, 'push', 'pending')]: async (t, queue) => {
    const job = await t.push(queue, { options: { pending: true } });
    expect(job.enqueued_at).toBeUndefined();
    return t.job(job.id);
  },
  [key('scheduled', 'timer', 'available')]: async (t, queue) => {
    const job = await INTO.scheduled(t, queue);
    await t.advance(3_600_001);
    const after = await t.job(job.id);
    expect(after.enqueued_at).toBe(t.iso());
    return after;
  },
  [key('pending', 'activate', 'available')]: async (t, queue) => {
    const job = await INTO.pending(t, queue);
    const res = await t.api.activateJob(job.id);
    expect(res.job.previous_state).toBe('pending');
    expect(res.job.activated_at).toBe(t.iso());
    expect(res.job.enqueued_at).toBe(t.iso());
    return t.job(job.id);
  },
  [key('available', 'fetch', 'active')]: async (t, queue) => {
    const job = await INTO.available(t, queue);
    // Held until now (rows from `available`): a dispatch log delivers it, and the FETCH takes it from there.
    await t.dispatch.release(queue);
    const claimed = await t.claim(queue, { worker_id: 'w-fetch' });
    expect(claimed).toMatchObject({ id: job.id, state: 'active', attempt: 1, worker_id: 'w-fetch', started_at: t.iso() });
    return t.job(job.id);
  },
  [key('available', 'expiry', 'discarded')]: async (t, queue) => {
    const job = await t.push(queue, { options: { expires_at: '+PT10S' } });
    await t.advance(10_001);
    const after = await t.job(job.id);
    expect(after.expired_at).toBeDefined();
    expect(after.completed_at).toBeUndefined();
    return after;
  },
  [key('scheduled', 'expiry', 'discarded')]: async (t, queue) => {
    const job = await INTO.scheduled(t, queue, { options: { expires_at: '+PT10S' } });
    await t.advance(10_001);
    const after = await t.job(job.id);
    expect(after.expired_at).toBeDefined();
    return after;
  },
  [key('retryable', 'expiry', 'discarded')]: async (t, queue) => {
    const job = await INTO.retryable(t, queue, { options: { expires_at: '+PT10S' } });
    await t.advance(10_001);
    const after = await t.job(job.id);
    expect(after.expired_at).toBeDefined();
    return after;
  },
  [key('active', 'ack', 'completed')]: async (t, queue) => {
    const job = await INTO.active(t, queue);
    await t.api.ack({ job_id: job.id, result: 42 });
    const after = await t.job(job.id);
    expect(after.result).toBe(42);
    return after;
  },
  [key('active', 'fail', 'retryable')]: async (t, queue) => {
    const job = await INTO.active(t, queue);
    await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'x' } });
    return t.job(job.id);
  },
  [key('active', 'fail', 'discarded')]: async (t, queue) => {
    const job = await INTO.active(t, queue, ONE_ATTEMPT);
    await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'x' } });
    const after = await t.job(job.id);
    expect(after.completed_at).toBeDefined();
    return after;
  },
  [key('active', 'requeue', 'available')]: async (t, queue) => {
    const job = await INTO.active(t, queue);
    await t.api.nack({ job_id: job.id, requeue: true });
    const after = await t.job(job.id);
    expect(after.started_at).toBeUndefined();
    expect(after.worker_id).toBeUndefined();
    return after;
  },
  [key('active', 'visibility_timeout', 'available')]: (t, queue) => visibilityReclaim(t, queue, {}),
  [key('active', 'visibility_timeout', 'discarded')]: (t, queue) => visibilityReclaim(t, queue, ONE_ATTEMPT),
  [key('active', 'worker_death', 'available')]: (t, queue) => workerDeath(t, queue, {}),
  [key('active', 'worker_death', 'discarded')]: (t, queue) => workerDeath(t, queue, ONE_ATTEMPT),
  [key('active', 'execution_timeout', 'retryable')]: (t, queue) => executionTimeout(t, queue, 3),
  [key('active', 'execution_timeout', 'discarded')]: (t, queue) => executionTimeout(t, queue, 1),
  [key('active', 'cancel', 'cancelled')]: cancelFrom('active'),
  [key('retryable', 'timer', 'available')]: async (t, queue) => {
    const job = await INTO.retryable(t, queue);
    await t.advance(job.retry_delay_ms! + 1);
    return t.job(job.id);
  },
  [key('scheduled', 'cancel', 'cancelled')]: cancelFrom('scheduled'),
  [key('available', 'cancel', 'cancelled')]: cancelFrom('available'),
  [key('pending', 'cancel', 'cancelled')]: cancelFrom('pending'),
  [key('retryable', 'cancel', 'cancelled')]: cancelFrom('retryable'),
  [key('discarded', 'dead_letter_retry', 'available')]: async (t, queue) => {
    const job = await INTO.discarded(t, queue);
    const res = await t.api.retryDeadLetter(job.id);
    expect(res.job.attempt).toBe(0);
    return t.job(job.id);
  },
  [key('scheduled', 'unique_replace', 'cancelled')]: (t, queue) => replaceWithNewer(t, queue, 'scheduled'),
  [key('available', 'unique_replace', 'cancelled')]: (t, queue) => replaceWithNewer(t, queue, 'available'),
  [key('pending', 'unique_replace', 'cancelled')]: (t, queue) => replaceWithNewer(t, queue, 'pending'),
  [key('retryable', 'unique_replace', 'cancelled')]: (t, queue) => replaceWithNewer(t, queue, 'retryable'),
  [key('active', 'unique_replace', 'cancelled')]: async (t, queue) => {
    const { unique_job_strength } = await t.api.manifest();
    if (unique_job_strength === 'strong') return replaceWithNewer(t, queue, 'active');
    // Without strong uniqueness the protocol falls back to reject: the active job must stay untouched.
    const old = await INTO.active(t, queue, uniqueReplace(queue));
    await expectOjsError(t.push(queue, uniqueReplace(queue)), { code: 'duplicate' });
    await t.expectState(old.id, 'active');
    return null;
  },
};

function rowId(row: Transition): string {
  return `transitions.rule-${row.rule}.${row.from ?? 'new'}-${row.trigger}-${row.to}`;
}

/** Operations a client can attempt on a job, with the trigger they fire and the error they get when illegal. */
interface Operation {
  name: string;
  trigger: Trigger;
  attempt(t: CaseContext, job: Job): Promise<void>;
}

const conflictNotActive = (job: Job) => ({
  code: 'conflict',
  details: { job_id: job.id, current_state: job.state, expected_state: 'active' },
});

const OPERATIONS: Operation[] = [
  { name: 'ack', trigger: 'ack', attempt: async (t, job) => void (await expectOjsError(t.api.ack({ job_id: job.id }), conflictNotActive(job))) },
  {
    name: 'nack',
    trigger: 'fail',
    attempt: async (t, job) =>
      void (await expectOjsError(t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'x' } }), conflictNotActive(job))),
  },
  {
    name: 'nack-requeue',
    trigger: 'requeue',
    attempt: async (t, job) => void (await expectOjsError(t.api.nack({ job_id: job.id, requeue: true }), conflictNotActive(job))),
  },
  {
    name: 'cancel',
    trigger: 'cancel',
    attempt: async (t, job) => {
      const error = await expectOjsError(t.api.cancelJob(job.id), { code: 'conflict', details: { job_id: job.id, current_state: job.state } });
      expect(error.message, 'the message names the current state').toContain(job.state);
    },
  },
  {
    name: 'activate',
    trigger: 'activate',
    attempt: async (t, job) => {
      const error = await expectOjsError(t.api.activateJob(job.id), { code: 'conflict' });
      expect(error.message, 'the message names the current state').toContain(job.state);
    },
  },
  {
    name: 'fetch',
    trigger: 'fetch',
    attempt: async (t, job) => {
      const res = await t.api.fetch({ queues: [job.queue], count: 10 });
      expect(res.jobs.map((j) => j.id)).not.toContain(job.id);
    },
  },
  {
    name: 'dead-letter-retry',
    trigger: 'dead_letter_retry',
    attempt: async (t, job) => void (await expectOjsError(t.api.retryDeadLetter(job.id), { code: 'not_found' })),
  },
];

/** Operations that name a job id, for the unknown-id cases. */
const BY_UNKNOWN_ID: Array<[string, (t: CaseContext, id: string) => Promise<unknown>]> = [
  ['get', (t, id) => t.api.getJob(id)],
  ['ack', (t, id) => t.api.ack({ job_id: id })],
  ['nack', (t, id) => t.api.nack({ job_id: id, error: { code: 'handler_error', message: 'x' } })],
  ['cancel', (t, id) => t.api.cancelJob(id)],
  ['activate', (t, id) => t.api.activateJob(id)],
  ['progress', (t, id) => t.api.getProgress(id)],
  ['dead-letter-get', (t, id) => t.api.getDeadLetter(id)],
  ['dead-letter-retry', (t, id) => t.api.retryDeadLetter(id)],
  ['dead-letter-delete', (t, id) => t.api.deleteDeadLetter(id)],
];

const UNKNOWN_ID = '01970000-0000-7000-8000-000000000000';

export function registerTransitionCases(suite: Suite): void {
  suite.group('transitions: every legal row of the table', () => {
    for (const row of TRANSITIONS) {
      suite.test(rowId(row), `${row.from ?? '∅'} --${row.trigger}--> ${row.to}`, async (t) => {
        const scenario = SCENARIOS[key(row.from, row.trigger, row.to)];
        if (!scenario) throw new Error(`no contract scenario drives row ${row.rule} (${key(row.from, row.trigger, row.to)}): add one`);
        // A dispatch log moves a ready job on to `pending`: rows from `available` run in a held queue, so the
        // job is there when the trigger fires; rows into it are checked once the log settled.
        const queue = row.from === READY ? t.heldQueue() : t.queue();
        const job = await scenario(t, queue);
        if (job === null) return;
        if (row.to === READY) await t.expectReady(job.id);
        else expect(job.state).toBe(row.to);
      });
    }
  });

  suite.group('transitions: every pair the table refuses', () => {
    for (const state of JOB_STATES) {
      for (const op of OPERATIONS) {
        if (TRANSITIONS.some((row) => row.from === state && row.trigger === op.trigger)) continue;
        suite.test(`transitions.illegal.${op.name}-from-${state}`, `${op.name} on a ${state} job is refused and changes nothing`, async (t) => {
          const job = await INTO[state](t, state === READY ? t.heldQueue() : t.queue());
          const before = await t.job(job.id);
          await op.attempt(t, before);
          expect(await t.job(job.id), 'a refused operation leaves the job untouched').toEqual(before);
        });
      }
    }
    for (const [name, call] of BY_UNKNOWN_ID) {
      suite.test(`transitions.unknown-id.${name}`, `${name} on an unknown job id → 404 not_found`, async (t) => {
        await expectOjsError(call(t, UNKNOWN_ID), { code: 'not_found' });
      });
    }
  });
}
