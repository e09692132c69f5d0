/**
 * Coalesces calls made in the same microtask run into one batch: many producers enqueueing one job each,
 * or many single ACKs, then cost one script call and one round trip instead of one each. Each call keeps its
 * own result; the batch function must treat every entry independently.
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
    private readonly runBatch: (batch: readonly P[]) => Promise<R[]>,
    private readonly maxWeight = 500,
    private readonly weigh: (params: P) => number = () => 1,
  ) {}

  call(params: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ params, resolve, reject });
      this.weight += this.weigh(params);
      // Flushed at the end of the current microtask run: calls made while replies of one socket read are
      // being handled join the batch, and a lone call waits for nothing (a macrotask would add latency).
      if (this.weight >= this.maxWeight) this.flush();
      else if (this.pending.length === 1) queueMicrotask(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.weight = 0;
    this.runBatch(batch.map((p) => p.params)).then(
      (results) => batch.forEach((p, i) => p.resolve(results[i]!)),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
  }
}
