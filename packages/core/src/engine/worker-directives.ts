/**
 * The directives (quiet, terminate) this engine has seen for workers: set by an operator through it, or read
 * back from the store by a worker's heartbeat. A FETCH from such a worker is answered with no jobs, so a client
 * that ignores the directive (or missed it) still stops getting work from this process. Best effort across
 * gateways: another gateway learns the directive on the worker's next heartbeat through it.
 */
import type { WorkerRecord } from '../driver/driver.js';

/** Workers remembered at most (ids with a directive only); past it the oldest entries go. */
const MAX_WORKERS = 10_000;

export class WorkerDirectives {
  private readonly stopped = new Map<string, WorkerRecord['directive']>();

  /** Records what the store says of a worker (from a heartbeat or an operator's directive). */
  note(id: string, directive: WorkerRecord['directive']): void {
    if (directive === 'running') {
      this.stopped.delete(id);
      return;
    }
    this.stopped.delete(id);
    this.stopped.set(id, directive);
    if (this.stopped.size > MAX_WORKERS) this.stopped.delete(this.stopped.keys().next().value!);
  }

  /** True when the worker was told to stop fetching (quiet or terminate). */
  refuses(id: string | undefined): boolean {
    return id !== undefined && this.stopped.size > 0 && this.stopped.has(id);
  }
}
