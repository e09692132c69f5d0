/**
 * Coalesces calls made in the same microtask run into one batch: many producers enqueueing one job each,
 * or many single ACKs, then cost one script call and one round trip instead of one each. Each call keeps its
 * own result; the batch function must treat every entry independently.
 *
 * A batch that reaches the weight limit goes at once and is marked `full`: more calls are on their way in
 * this run (the replies of one socket read resume many callers), and the backend can work on this batch
 * while this process prepares the next, instead of the two sides taking turns.
 */
type Pending<P, R> = { params: P; resolve: (result: R) => void; reject: (error: unknown) => void };

export class Coalescer<P, R> {
  private pending: Array<Pending<P, R>> = [];
  private weight = 0;

  /**
   * `maxWeight` bounds one batch (Redis runs a script to completion before serving anyone else); `weigh`
   * tells what a call counts for (default 1; an insert counts its jobs).
   */
  constructor(
    private readonly runBatch: (batch: readonly P[], full: boolean) => Promise<R[]>,
    private readonly maxWeight = 500,
    private readonly weigh: (params: P) => number = () => 1,
  ) {}

  call(params: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ params, resolve, reject });
      this.weight += this.weigh(params);
      // Flushed at the end of the current microtask run: calls made while replies of one socket read are
      // being handled join the batch, and a lone call waits for nothing (a macrotask would add latency).
      if (this.weight >= this.maxWeight) this.flush(true);
      else if (this.pending.length === 1) queueMicrotask(() => this.flush());
    });
  }

  /** Sends what is waiting now instead of at the end of the microtask run (a later call must not overtake it). */
  flushNow(): void {
    this.flush(this.weight >= this.maxWeight);
  }

  private flush(full = false): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.weight = 0;
    this.runBatch(
      batch.map((p) => p.params),
      full,
    ).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i]!)),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
  }
}
