/**
 * Tells FETCHes waiting in this process that jobs are on their way to a queue before their `job.enqueued`
 * event exists: an insert was just issued to a driver whose calls run in the order they are made
 * (`DriverCapabilities.orderedCalls`), so a claim issued now runs after that insert and finds its jobs. A
 * waiting FETCH then claims one round trip sooner than the event would let it (insert answered, event
 * emitted, claim sent). The signal is a hint: the insert may still store nothing (a unique conflict, a
 * failure), and a FETCH woken by it that finds no job keeps waiting.
 */
export class WorkSignal {
  private readonly waiters = new Set<{ queues: readonly string[]; listener: (count: number) => void }>();

  /**
   * Calls `listener` with the number of available jobs whenever work is sent towards one of `queues`;
   * returns the function that stops it.
   */
  watch(queues: readonly string[], listener: (count: number) => void): () => void {
    const entry = { queues, listener };
    this.waiters.add(entry);
    return () => this.waiters.delete(entry);
  }

  /** An insert of `count` available jobs into `queue` was just issued to an ordered driver. */
  sent(queue: string, count: number): void {
    for (const waiter of this.waiters) if (waiter.queues.includes(queue)) waiter.listener(count);
  }

  /** Whether any FETCH is waiting (spares the enqueue path a walk over its jobs when none is). */
  get watched(): boolean {
    return this.waiters.size > 0;
  }
}
