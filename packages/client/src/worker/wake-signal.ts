/** A latch the fetch loop sleeps on: a notify while nobody waits is remembered, so no wake-up is lost. */
export class WakeSignal {
  private pending = false;
  private waiter: (() => void) | undefined;

  /** Wakes the waiter now, or the next `wait()` at once. */
  notify(): void {
    const waiter = this.waiter;
    if (waiter) waiter();
    else this.pending = true;
  }

  /**
   * Wakes the waiter if there is one, and is forgotten otherwise: for a change the waiter re-checks
   * synchronously before it sleeps, where a remembered notify would cut the next (backoff) sleep short.
   */
  notifyWaiting(): void {
    this.waiter?.();
  }

  /** Stops waiting without resolving (the waiter raced this signal against something else, which won). */
  abandon(): void {
    this.waiter = undefined;
  }

  /** Resolves on the next notify, or after `ms` when given. */
  wait(ms?: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.waiter = undefined;
        resolve();
      };
      this.waiter = done;
      if (ms !== undefined) timer = setTimeout(done, ms);
    });
  }
}
