/**
 * One attempt of one job inside the worker: the wire job, its camelCase view and `AbortController` built only
 * when first used (both cost more than the rest of the worker's per-job work), its abort reason and its phase.
 */
import type { Job as WireJob } from '@ojskit/core';
import { jobFromWire, type Job } from '../mapping/job.js';

export class JobRun {
  /** `running` while the handler may still report; `settling` once the outcome is being sent. */
  phase: 'running' | 'settling' = 'running';
  private view: Job | undefined;
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  private onAbort: ((reason: Error) => void) | undefined;

  constructor(readonly wire: WireJob) {}

  get id(): string {
    return this.wire.id;
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
