/** `CaseContext`: the subject of one case plus the few helpers every case file uses. */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Job, JobState, OjsApi } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { toTimestamp } from '@ojskit/core/formats';
import type { ManualClock } from '@ojskit/core/testing';
import { DispatchView } from './dispatch-log.js';
import type { ContractSubject } from './subject.js';

/** The job type cases enqueue unless they need another. */
export const TEST_JOB_TYPE = 'contract.job';

/** A short random token: keeps queue and cron names unique across cases sharing one store. */
export function token(): string {
  return randomBytes(5).toString('hex');
}

/** Fetch options a case may pass to `claim`. */
export interface ClaimOptions {
  worker_id?: string;
  visibility_timeout_ms?: number;
}

/** One case's view of its subject. */
export class CaseContext {
  readonly api: OjsApi;
  readonly clock: ManualClock;
  readonly driver: Driver | undefined;
  /** The subject's dispatch log, if it has one (`DispatchView`): where ready jobs are, settling, holding. */
  readonly dispatch: DispatchView;
  private readonly prefix = `ct-${token()}`;
  private counter = 0;

  constructor(readonly subject: ContractSubject) {
    this.api = subject.api;
    this.clock = subject.clock;
    this.driver = subject.driver;
    this.dispatch = new DispatchView(subject.dispatchLog, subject.driver?.capabilities.dispatchLog, 'backend');
  }

  /** A queue name no other case (or other call) uses. */
  queue(): string {
    this.counter += 1;
    return `${this.prefix}-q${this.counter}`;
  }

  /**
   * A fresh queue whose jobs the subject's dispatch log leaves `available` until `dispatch.release(queue)`:
   * for cases that move a job out of `available` themselves. A plain queue on other backends.
   */
  heldQueue(): string {
    const queue = this.queue();
    this.dispatch.hold(queue);
    return queue;
  }

  /** A unique name for crons and workflows. */
  uniqueName(): string {
    this.counter += 1;
    return `${this.prefix}-n${this.counter}`;
  }

  /** The subject's current time (ms). */
  now(): number {
    return this.clock.now();
  }

  /** The subject's current time, plus an offset, as a server timestamp. */
  iso(offsetMs = 0): string {
    return toTimestamp(this.clock.now() + offsetMs);
  }

  /** Moves the clock forward, then runs every background service once. */
  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.maintenance();
  }

  /**
   * Runs every background service once, on a settled dispatch log: a job whose delivery is still under way is
   * in neither state the services look at (the expirer passed it over as `available` and did not yet find it
   * `pending`: events.expired-data failed so on kafka+postgres under load).
   */
  async maintenance(): Promise<void> {
    await this.dispatch.settle();
    await this.subject.maintenance();
  }

  /**
   * PUSHes a `contract.job` into `queue`. `extra` is merged into the request; its `options` are merged
   * with `{queue}`.
   */
  async push(queue: string, extra: Record<string, unknown> = {}): Promise<Job> {
    const { options, ...rest } = extra as { options?: Record<string, unknown> };
    const res = await this.api.enqueue({ type: TEST_JOB_TYPE, args: [], ...rest, options: { queue, ...(options ?? {}) } });
    return res.job;
  }

  /** FETCHes one job from `queue` and fails the case when there is none. */
  async claim(queue: string, options: ClaimOptions = {}): Promise<Job> {
    const res = await this.api.fetch({ queues: [queue], count: 1, ...options });
    expect(res.jobs, `expected a job to claim from ${queue}`).toHaveLength(1);
    return res.jobs[0]!;
  }

  /** FETCHes up to `count` jobs from `queues` and returns their ids in claim order. */
  async claimIds(queues: string[], count = 1, options: ClaimOptions = {}): Promise<string[]> {
    const res = await this.api.fetch({ queues, count, ...options });
    return res.jobs.map((j) => j.id);
  }

  async job(id: string): Promise<Job> {
    return (await this.api.getJob(id)).job;
  }

  async state(id: string): Promise<JobState> {
    return (await this.api.getJob(id)).job.state;
  }

  /**
   * Asserts that a job the case made ready is ready: `available`, or with a dispatch log `pending` once the
   * log settled (never either of them by chance; `available` again in a held queue).
   */
  async expectReady(id: string): Promise<Job> {
    await this.dispatch.settle();
    const job = await this.job(id);
    this.dispatch.expectReady(job.state, job.queue, `state of job ${id}`);
    return job;
  }

  /** Asserts a queue's stats (`toMatchObject`), ready jobs counted where a settled subject shows them. */
  async expectStats(queue: string, expected: Partial<Record<JobState, number>>): Promise<void> {
    await this.dispatch.settle();
    expect(await this.api.queueStats(queue), `stats of ${queue}`).toMatchObject(this.dispatch.counts(expected, queue));
  }

  /** Asserts a job's state. */
  async expectState(id: string, state: JobState): Promise<Job> {
    const job = await this.job(id);
    expect(job.state, `state of job ${id}`).toBe(state);
    return job;
  }
}
