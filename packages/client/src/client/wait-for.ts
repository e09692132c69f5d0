/** Waiting for a job to reach a state: live events when the transport has them, polling as the fallback. */
import { startTimer } from '../timing/long-timer.js';
import { TERMINAL_STATES, type Job as WireJob, type JobState } from '@ojskit/core';
import { WaitTimeoutError } from '../errors.js';
import type { Transport } from '../transport/transport.js';

/** Options of `client.waitFor()`. */
export interface WaitForOptions {
  /** States that end the wait (default: the terminal ones, `completed`, `cancelled`, `discarded`). */
  states?: readonly JobState[];
  /**
   * Give up after this long (default 30 s) with a `WaitTimeoutError`. When no read of the job has answered by
   * then, the one in flight is awaited first, so the error names the job's state whenever it could be read.
   */
  timeoutMs?: number;
  /** Polling period used in case events are missed or unavailable (default 500 ms). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** Resolves with the wire job once it is in one of the awaited states. */
export function waitForJob(api: Transport, id: string, options: WaitForOptions = {}): Promise<WireJob> {
  const states = options.states ?? TERMINAL_STATES;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  return new Promise<WireJob>((resolve, reject) => {
    let done = false;
    let lastState: JobState | undefined;
    let checking = false;
    let recheck = false;
    /** The deadline passed while the first read was still out: it ends the wait when it answers. */
    let timedOut = false;
    const cleanups: Array<() => void> = [];
    const finish = (error: unknown, job?: WireJob): void => {
      if (done) return;
      done = true;
      for (const cleanup of cleanups) cleanup();
      if (job) resolve(job);
      else reject(error);
    };
    // One read at a time; an event arriving mid-read triggers one more read so no transition is missed.
    const check = async (): Promise<void> => {
      if (checking) {
        recheck = true;
        return;
      }
      checking = true;
      try {
        do {
          recheck = false;
          const { job } = await api.getJob(id);
          lastState = job.state;
          if (states.includes(job.state)) return finish(undefined, job);
        } while (recheck && !done);
      } catch (error) {
        finish(error);
      } finally {
        checking = false;
        if (timedOut) finish(new WaitTimeoutError(id, timeoutMs, lastState));
      }
    };

    if (options.signal) {
      if (options.signal.aborted) return finish(options.signal.reason);
      const onAbort = (): void => finish(options.signal!.reason);
      options.signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => options.signal!.removeEventListener('abort', onAbort));
    }
    const timer = startTimer(() => {
      // On a slow link or a loaded machine the first read may still be out at a short deadline.
      if (checking && lastState === undefined) timedOut = true;
      else finish(new WaitTimeoutError(id, timeoutMs, lastState));
    }, timeoutMs);
    cleanups.push(() => timer.cancel());
    // Subscribe before the first read, so a transition between the two is seen by one or the other.
    try {
      const unsubscribe = api.subscribe({ jobId: id }, (event) => {
        const state = (event.data as { state?: JobState }).state;
        if (state === undefined || states.includes(state)) void check();
      });
      cleanups.push(unsubscribe);
    } catch {
      // No live events on this transport: polling alone.
    }
    const poll = setInterval(() => void check(), pollIntervalMs);
    cleanups.push(() => clearInterval(poll));
    void check();
  });
}
