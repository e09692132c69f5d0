/**
 * One attempt of one job inside the worker: the wire job, its camelCase view and `AbortController` built only
 * when first used (both cost more than the rest of the worker's per-job work), its abort reason and its phase.
 */
import type { LongTimer } from '../timing/long-timer.js';
import type { Job as WireJob } from '@ojskit/core';
import { jobFromWire, type Job } from '../mapping/job.js';
import type { PendingAck } from './ack-batcher.js';

/** Hears how a run's ACK ended (the worker): a finished run is its own `PendingAck`. */
export interface RunAckListener {
  runAcked(run: JobRun): void;
  runAckRefused(run: JobRun, error: unknown): void;
}

export class JobRun implements PendingAck {
  /** `running` while the handler may still report; `settling` once the outcome is being sent. */
  phase: 'running' | 'settling' = 'running';
  private view: Job | undefined;
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  private onAbort: ((reason: Error) => void) | undefined;

  /** When the handler started (`performance.now()`), its timeout timer, and its result once it returned. */
  startedAt = 0;
  timer: LongTimer | undefined;
  result: unknown;

  constructor(
    readonly wire: WireJob,
    private readonly listener?: RunAckListener,
  ) {}

  acked(): void {
    this.listener?.runAcked(this);
  }

  refused(error: unknown): void {
    this.listener?.runAckRefused(this, error);
  }

  get id(): string {
    return this.wire.id;
  }

  get jobId(): string {
    return this.wire.id;
  }

  get attempt(): number {
    return this.wire.attempt;
  }

  get job(): Job {
    return (this.view ??= jobFromWire(this.wire));
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Why the run was aborted, if it was. */
  get abortReason(): Error | undefined {
    return this.reason;
  }

  /** Fires the signal once, and only while the handler runs. */
  abort(reason: Error): void {
    if (this.phase !== 'running' || this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    this.onAbort?.(reason);
  }

  /** Registers the one callback told about an abort (the worker's race between handler and abort). */
  whenAborted(callback: (reason: Error) => void): void {
    if (this.reason) callback(this.reason);
    else this.onAbort = callback;
  }
}
