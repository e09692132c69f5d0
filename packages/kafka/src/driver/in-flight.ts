/**
 * Jobs this process handed to the dispatch log and has not yet seen dispatched. A claim waits for them (up to a
 * bound) so that a FETCH made after an enqueue in the same process finds the job, as on the store's own
 * adapter, instead of coming back empty while the record is on its way through Kafka.
 *
 * It also knows when a claim need not wait: a queue is `ordered` while every job this process handed over for
 * it (since the last `clear`) was a fresh insert of one priority. The log delivers a queue's records in the
 * order they were handed over, and the claim ranks by priority then dispatch order, so in such a queue every
 * dispatched job ranks ahead of every job still on its way: taking the dispatched ones first is the order a
 * claim that waited would have returned. A second priority, or a job re-entering the queue (a retry, requeue,
 * promotion or ACTIVATE, whose priority the store's summary does not carry and whose place in an aging queue
 * depends on its old enqueue time), makes the queue wait as before until `clear`.
 */
import type { DispatchEntry } from './dispatch-record.js';

/** A job handed to the log; `priority` only for a fresh insert (the one kind of entry a claim may pass). */
export interface InFlightEntry extends DispatchEntry {
  priority?: number;
}

export class InFlight {
  /** Job id → queue and when it was handed over. */
  private readonly entries = new Map<string, { queue: string; since: number }>();
  /** Queue → the one priority of every job handed over for it, or null once that stopped being true. */
  private readonly priorities = new Map<string, number | null>();
  private waiters: Array<() => void> = [];

  add(entries: readonly InFlightEntry[], now = Date.now()): void {
    for (const e of entries) {
      this.entries.set(e.id, { queue: e.queue, since: now });
      const seen = this.priorities.get(e.queue);
      if (e.priority === undefined) this.priorities.set(e.queue, null);
      else if (seen === undefined) this.priorities.set(e.queue, e.priority);
      else if (seen !== e.priority) this.priorities.set(e.queue, null);
    }
  }

  /**
   * Whether a claim over `queue` may take the dispatched jobs without waiting for the ones on their way (see
   * above): true for a queue this process never handed a job of.
   */
  ordered(queue: string): boolean {
    return this.priorities.get(queue) !== null;
  }

  /** The jobs' dispatch was recorded, or they left `available` another way: claims need not wait for them. */
  settle(ids: Iterable<string>): void {
    let changed = false;
    for (const id of ids) changed = this.entries.delete(id) || changed;
    if (changed) this.wake();
  }

  /** Whether a job of one of `queues` is on its way. */
  has(queues: readonly string[]): boolean {
    for (const e of this.entries.values()) if (queues.includes(e.queue)) return true;
    return false;
  }

  /** The jobs of `queues` on their way now. */
  onTheirWay(queues: readonly string[]): string[] {
    const ids: string[] = [];
    for (const [id, e] of this.entries) if (queues.includes(e.queue)) ids.push(id);
    return ids;
  }

  /**
   * Resolves once none of the jobs of `queues` on their way when it was called is any more, or after `ms`: jobs
   * handed over meanwhile are not waited for, so under a steady stream of enqueues a claim waits for what was
   * enqueued before it, not for a moment when nothing is in flight. Entries older than `ms` are dropped at the
   * deadline: another process's dispatcher recorded them (this one never hears of it), or the relay's sweep
   * re-produces them; either way waiting longer would only delay every claim.
   */
  async drain(queues: readonly string[], ms: number): Promise<void> {
    await this.waitFor(this.onTheirWay(queues), ms, Infinity, ms);
  }

  /**
   * Waits until `enough` of `ids` were dispatched (or left the ready state), all of them were, or `ms` passed
   * (then dropping entries handed over more than `staleMs` ago, as `drain` does); resolves with the ids still on
   * their way.
   */
  async waitFor(ids: readonly string[], ms: number, enough: number, staleMs: number): Promise<string[]> {
    const deadline = Date.now() + ms;
    let waitingFor = [...ids];
    // settled ids leave the list as they go, so each wake-up checks only what is still on its way
    const pending = () => (waitingFor = waitingFor.filter((id) => this.entries.has(id))).length > 0 && ids.length - waitingFor.length < enough;
    while (pending()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const cutoff = Date.now() - staleMs;
        for (const [id, e] of this.entries) if (e.since <= cutoff) this.entries.delete(id);
        return waitingFor.filter((id) => this.entries.has(id));
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return waitingFor;
  }

  /**
   * Resolves true once no entry of a queue `counts` accepts is left (entries are not dropped), false after
   * `ms`.
   */
  async idle(counts: (queue: string) => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    const busy = (): boolean => {
      for (const e of this.entries.values()) if (counts(e.queue)) return true;
      return false;
    };
    while (busy()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Ends every wait and forgets the queues' priorities (closing, a reset of the store). */
  clear(): void {
    this.entries.clear();
    this.priorities.clear();
    this.wake();
  }
}
