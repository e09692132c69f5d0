/** `Client`: the producer side of the SDK — enqueue, inspect, cancel, wait, and the admin namespaces. */
import type { JobState } from '@ojskit/core';
import { enqueueRequestToWire, type EnqueueOptions } from '../mapping/enqueue.js';
import { jobFromWire, type Job } from '../mapping/job.js';
import { progressFromWire, type Progress } from '../mapping/progress.js';
import { historyFromWire, type JobHistory } from '../mapping/history.js';
import type { DurationInput, TimeInput } from '../mapping/time.js';
import type { AnyJobs, ArgsOf, JobRegistry, JobTypeOf, ResultOf } from '../registry.js';
import type { Transport } from '../transport/transport.js';
import { CronJobs, DeadLetter, Queues, Workflows } from './namespaces.js';
import { Jobs, Workers } from './admin-namespaces.js';
import { adminStatsFromWire, bulkEnqueueFromWire, type AdminStats, type BulkEnqueueResult } from '../mapping/admin.js';
import { waitForJob, type WaitForOptions } from './wait-for.js';

/** One job of `enqueueMany`. */
export type JobSpec<R extends JobRegistry<R> = AnyJobs> = {
  [K in JobTypeOf<R>]: { type: K; args: ArgsOf<R, K>; options?: EnqueueOptions };
}[JobTypeOf<R>];

/** When a scheduled job should run: at a time, or after a delay (ms or ISO 8601 duration). */
export type ScheduleAt = TimeInput | { delay: DurationInput };

/**
 * The producer API over any transport: in-process (an `Engine` over a driver) or HTTP.
 * Give it a job-type registry to type args and results.
 * @example
 * const client = new Client(inProcess(new MemoryDriver()));
 * const job = await client.enqueue('email.send', ['ada@example.com'], { retry: { maxAttempts: 5 } });
 */
export class Client<R extends JobRegistry<R> = AnyJobs> {
  /** Chains, groups and batches. */
  readonly workflows: Workflows;
  /** Recurring jobs. */
  readonly cron: CronJobs;
  /** Pause, resume and statistics. */
  readonly queues: Queues;
  /** The dead-letter queue. */
  readonly deadLetter: DeadLetter;
  /** Workers and operator directives (quiet, terminate). */
  readonly workers: Workers;
  /** Jobs in every state: listing, retry, bulk cancel/retry/delete. */
  readonly jobs: Jobs;

  constructor(readonly api: Transport) {
    this.workflows = new Workflows(api);
    this.cron = new CronJobs(api);
    this.queues = new Queues(api);
    this.deadLetter = new DeadLetter(api);
    this.workers = new Workers(api);
    this.jobs = new Jobs(api);
  }

  /**
   * Enqueues several jobs, each on its own (`partial`, the default: the result says which were stored) or all
   * or nothing (`atomic`). When every job fails it throws (`x_bulk_failed`, items in `details.items`).
   * @example const { items } = await client.enqueueBulk([{ type: 'email.send', args: ['a@b.c'] }])
   */
  async enqueueBulk(jobs: ReadonlyArray<JobSpec<R>>, options: { atomicity?: 'partial' | 'atomic' } = {}): Promise<BulkEnqueueResult> {
    const request = { jobs: jobs.map((j) => enqueueRequestToWire(j.type, j.args, j.options)), ...(options.atomicity ? { atomicity: options.atomicity } : {}) };
    return bulkEnqueueFromWire(await this.api.enqueueBulk(request));
  }

  /** Totals: queues, workers (live, and by state), jobs per state. */
  async stats(): Promise<AdminStats> {
    return adminStatsFromWire(await this.api.adminStats());
  }

  /** Enqueues one job. With a unique policy `ignore` that matched, returns the existing job with `deduplicated: true`. */
  async enqueue<K extends JobTypeOf<R>>(type: K, args: ArgsOf<R, K>, options?: EnqueueOptions): Promise<Job<ArgsOf<R, K>, ResultOf<R, K>>> {
    const response = await this.api.enqueue(enqueueRequestToWire(type, args, options));
    const job = jobFromWire<ArgsOf<R, K>, ResultOf<R, K>>(response.job);
    if (response.deduplicated) job.deduplicated = true;
    return job;
  }

  /** Enqueues several jobs all-or-nothing: if one is rejected, none is stored. Returned in request order. */
  async enqueueMany(jobs: ReadonlyArray<JobSpec<R>>): Promise<Job[]> {
    const response = await this.api.enqueueBatch({ jobs: jobs.map((j) => enqueueRequestToWire(j.type, j.args, j.options)) });
    return response.jobs.map((job) => jobFromWire(job));
  }

  /**
   * Enqueues a job that runs no earlier than `at` (a `Date`/RFC 3339 text) or after `{ delay }`.
   * @example await client.schedule('report.build', [7], { delay: 60_000 })
   */
  async schedule<K extends JobTypeOf<R>>(
    type: K,
    args: ArgsOf<R, K>,
    at: ScheduleAt,
    options: Omit<EnqueueOptions, 'delay' | 'scheduledAt'> = {},
  ): Promise<Job<ArgsOf<R, K>, ResultOf<R, K>>> {
    const when = typeof at === 'object' && !(at instanceof Date) ? { delay: at.delay } : { scheduledAt: at };
    return this.enqueue(type, args, { ...options, ...when });
  }

  async get(id: string): Promise<Job> {
    return jobFromWire((await this.api.getJob(id)).job);
  }

  /** Cancels a job that has not finished; a running job's handler sees its `signal` abort. */
  async cancel(id: string): Promise<Job> {
    return jobFromWire((await this.api.cancelJob(id)).job);
  }

  /** Releases a job enqueued with `pending: true`. */
  async activate(id: string): Promise<Job> {
    return jobFromWire((await this.api.activateJob(id)).job);
  }

  /**
   * Every transition of the job, oldest first, as its store recorded it (ojskit extension `x-job-history`);
   * rejects with `unsupported` on a backend that keeps no history.
   * @example (await client.history(job.id)).transitions.map((t) => `${t.from ?? '∅'} → ${t.to} (${t.trigger})`)
   */
  async history(id: string): Promise<JobHistory> {
    return historyFromWire(await this.api.getJobHistory(id));
  }

  /** The last progress the job's handler reported. */
  async progress(id: string): Promise<Progress> {
    return progressFromWire(await this.api.getProgress(id));
  }

  /**
   * Resolves once the job reaches one of `states` (default: a terminal state), using live events when the
   * transport has them and polling otherwise.
   * @example const done = await client.waitFor(job.id, { timeoutMs: 5_000 }); done.result
   */
  async waitFor(id: string, options?: WaitForOptions): Promise<Job> {
    return jobFromWire(await waitForJob(this.api, id, options));
  }
}

export type { JobState, WaitForOptions };
