/** What a handler receives: the job, its args, an `AbortSignal`, and ways to report progress. */
import type { Job } from '../mapping/job.js';
import type { JobRun } from './job-run.js';

/** The context of one attempt of one job. */
export interface JobContext<Args extends unknown[] = unknown[], Result = unknown> {
  readonly job: Job<Args, Result>;
  /** Same as `job.args`. */
  readonly args: Args;
  /** 1 on the first run, 2 on the first retry, … */
  readonly attempt: number;
  readonly workerId: string;
  /**
   * Fires when the job is cancelled elsewhere (`JobCancelledError`), runs past its timeout (`JobTimeoutError`),
   * is no longer held by this worker (`JobLostError`), or the worker shuts down past its grace period
   * (`WorkerClosingError`); the reason is `signal.reason`. Pass it to `fetch`, timers, child processes.
   */
  readonly signal: AbortSignal;
  /** Reports progress in [0, 1] (clamped by the server, never decreasing) with an optional message and data. */
  progress(fraction: number, message?: string, data?: unknown): Promise<void>;
  /** Extends this job's reservation now (the worker also does it on a timer). */
  heartbeat(): Promise<void>;
  /** Scratch space shared by middleware and the handler for this attempt. */
  readonly state: Record<string, unknown>;
}

/** What a context needs from its worker. */
export interface ContextHost {
  readonly workerId: string;
  progress(run: JobRun, fraction: number, message?: string, data?: unknown): Promise<void>;
  heartbeat(run: JobRun): Promise<void>;
}

/** The context handed to middleware and handlers; the job view, signal and state are built on first access. */
export class Context implements JobContext {
  private scratch: Record<string, unknown> | undefined;

  constructor(
    private readonly run: JobRun,
    private readonly host: ContextHost,
  ) {}

  // Made on first use: most handlers never touch it, and every job would pay for the object.
  get state(): Record<string, unknown> {
    return (this.scratch ??= {});
  }

  get job(): Job {
    return this.run.job;
  }

  get args(): unknown[] {
    return this.run.wire.args;
  }

  get attempt(): number {
    return this.run.wire.attempt;
  }

  get workerId(): string {
    return this.host.workerId;
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  progress(fraction: number, message?: string, data?: unknown): Promise<void> {
    return this.host.progress(this.run, fraction, message, data);
  }

  heartbeat(): Promise<void> {
    return this.host.heartbeat(this.run);
  }
}
