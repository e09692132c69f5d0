/** What a handler receives: the job, its args, an `AbortSignal`, and ways to report progress. */
import type { Job } from '../mapping/job.js';

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
