/** `DriverCaseContext`: one case's driver, its peers, and builders of stored jobs in any state. */
import { expect } from 'vitest';
import type { Job, JobState } from '@ojskit/core';
import type { ClaimParams, ClaimResult, Driver, InsertOutcome, JobInternals, StoredJob } from '@ojskit/core/driver';
import { newId, toTimestamp } from '@ojskit/core/formats';
import { token } from '../context.js';
import { DispatchView } from '../dispatch-log.js';
import type { DriverSubject } from './subject.js';

/** The instant cases start from. Drivers never read a clock: every time is passed in, so a fixed one serves. */
export const T0 = Date.UTC(2026, 0, 1);

/** An epoch-ms time as the server timestamp drivers are handed. */
export const iso = (ms: number): string => toTimestamp(ms);

/** The job type of every job the suite stores. */
export const DRIVER_JOB_TYPE = 'driver.job';

/** Reservation and execution limits of every built job (and so what a claim derives its deadlines from). */
export const VISIBILITY_MS = 30_000;
export const TIMEOUT_MS = 60_000;

/** How far ahead built `scheduled`/`retryable` jobs are due unless a case says otherwise. */
export const DUE_IN_MS = 3_600_000;

/**
 * The fields a job carries in each state, as the engine would have written them on the way there (the
 * envelope timestamps and the internals the driver's indexes are built from). Exhaustive over `JobState`:
 * a state added to core fails the build here until its fields are written down.
 */
function fieldsOf(state: JobState, at: number): { job: Partial<Job>; x: Partial<JobInternals> } {
  switch (state) {
    case 'scheduled':
      return { job: { scheduled_at: iso(at + DUE_IN_MS) }, x: { dueAt: at + DUE_IN_MS } };
    case 'available':
      return { job: { enqueued_at: iso(at) }, x: {} };
    case 'pending':
      return { job: {}, x: {} };
    case 'active':
      return {
        job: { enqueued_at: iso(at), attempt: 1, started_at: iso(at), worker_id: 'w1' },
        x: { claimVisibilityMs: VISIBILITY_MS, visibleUntil: at + VISIBILITY_MS, timeoutAt: at + TIMEOUT_MS },
      };
    case 'retryable':
      return { job: { enqueued_at: iso(at), attempt: 1, next_attempt_at: iso(at + DUE_IN_MS) }, x: { dueAt: at + DUE_IN_MS } };
    case 'completed':
      return { job: { enqueued_at: iso(at), attempt: 1, started_at: iso(at), completed_at: iso(at) }, x: { finishedAt: at } };
    case 'cancelled':
      return { job: { enqueued_at: iso(at), cancelled_at: iso(at) }, x: { finishedAt: at } };
    case 'discarded':
      return { job: { enqueued_at: iso(at), attempt: 1, started_at: iso(at), discarded_at: iso(at) }, x: { finishedAt: at } };
  }
}

/** One case's view of its subject. */
export class DriverCaseContext {
  readonly driver: Driver;
  /** The driver's dispatch log, if it has one (`DispatchView`): where ready jobs are, settling, holding. */
  readonly dispatch: DispatchView;
  private readonly prefix = `dc-${token()}`;
  private counter = 0;

  constructor(private readonly subject: DriverSubject) {
    this.driver = subject.driver;
    this.dispatch = new DispatchView(subject.dispatchLog, subject.driver.capabilities.dispatchLog, 'driver');
  }

  /** `count` drivers on the store for racing callers: this case's driver, then peers when the subject opens them. */
  async racers(count: number): Promise<Driver[]> {
    const drivers = [this.driver];
    const open = this.subject.peer;
    if (open) while (drivers.length < count) drivers.push(await open());
    return drivers;
  }

  /** A queue name no other case (or other call) uses. */
  queue(): string {
    this.counter += 1;
    return `${this.prefix}-q${this.counter}`;
  }

  /**
   * A fresh queue whose jobs the driver's dispatch log leaves `available` until `dispatch.release(queue)`:
   * for cases that move a job out of `available` themselves, or read it there. A plain queue elsewhere.
   */
  heldQueue(): string {
    const queue = this.queue();
    this.dispatch.hold(queue);
    return queue;
  }

  /** A unique name for crons, workflows, leases and unique keys. */
  name(): string {
    this.counter += 1;
    return `${this.prefix}-n${this.counter}`;
  }

  /**
   * A stored job in `queue`, in `job.state` (default `available`) with the fields that state carries
   * (`fieldsOf`); anything in `job` and `x` overrides them.
   */
  job(queue: string, job: Partial<Job> = {}, x: Partial<JobInternals> = {}, at = T0): StoredJob {
    const state: JobState = job.state ?? 'available';
    const derived = fieldsOf(state, at);
    return {
      job: {
        specversion: '1.0',
        id: newId(),
        type: DRIVER_JOB_TYPE,
        queue,
        args: [1, 'two', { three: 3 }],
        meta: { trace: 'abc' },
        priority: 0,
        state,
        attempt: 0,
        max_attempts: 3,
        created_at: iso(at),
        ...derived.job,
        ...job,
      } as Job,
      x: { visibilityMs: VISIBILITY_MS, timeoutMs: TIMEOUT_MS, ...derived.x, ...x },
    };
  }

  /** Inserts at `now` and fails the case unless every job was inserted or matched. */
  async insert(jobs: StoredJob[], now = T0): Promise<InsertOutcome[]> {
    const result = await this.driver.jobInsert({ jobs, now, nowIso: iso(now) });
    if (!result.ok) expect.fail(`insert refused at index ${result.index}: ${result.reason}`);
    return result.outcomes;
  }

  /** Claims from `queues` at `now` (default T0) as `w1` unless told otherwise. */
  claim(queues: readonly string[], limit: number, over: Partial<ClaimParams> = {}, driver: Driver = this.driver): Promise<ClaimResult> {
    const now = over.now ?? T0;
    return driver.jobClaim({ queues, limit, workerId: 'w1', now, nowIso: iso(now), ...over });
  }

  /** Claims and returns the ids, in claim order. */
  async claimIds(queues: readonly string[], limit: number, over: Partial<ClaimParams> = {}): Promise<string[]> {
    return (await this.claim(queues, limit, over)).jobs.map((j) => j.id);
  }

  /** The stored job, failing the case when it is gone. */
  async stored(id: string): Promise<StoredJob> {
    const got = await this.driver.jobGet(id);
    if (got === null) expect.fail(`job ${id} is not stored`);
    return got;
  }

  /** Asserts that a job the case made ready is ready: `available`, or `pending` once a dispatch log settled. */
  async expectReady(id: string): Promise<void> {
    await this.dispatch.settle();
    const { job } = await this.stored(id);
    this.dispatch.expectReady(job.state, job.queue, `state of job ${id}`);
  }

  /** Asserts a queue's counts (`toMatchObject`; all queues without one), ready jobs where a settled driver shows them. */
  async expectCounts(queue: string | undefined, expected: Partial<Record<JobState, number>>): Promise<void> {
    await this.dispatch.settle();
    const counts = await this.driver.jobCounts(queue === undefined ? {} : { queue });
    expect(counts, `counts of ${queue ?? 'every queue'}`).toMatchObject(this.dispatch.counts(expected, queue));
  }

  async state(id: string): Promise<JobState | undefined> {
    return (await this.driver.jobGet(id))?.job.state;
  }
}
