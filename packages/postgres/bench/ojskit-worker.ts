/**
 * The worker loop the benchmark runs ojskit with, straight on the Engine (what the SDK's Worker does on its
 * hot path, kept here so the benchmark measures the engine and the driver without a package cycle):
 * - FETCHes of up to `fetchSize` jobs fill a local buffer of at most `prefetch` (as graphile-worker's local
 *   queue does), up to `maxFetches` in flight so the database claims the next batch while this process
 *   handles the current one; `concurrency` handlers take jobs from the buffer;
 * - completions go out together with `ackMany`, up to `maxAcks` batches in flight (the pool runs them on
 *   separate connections); while all are out, completions wait and the next batch grows with the
 *   database's latency. An idle worker's lone ACK leaves at once.
 */
import type { Engine, Job } from '@ojskit/core';

export interface LoopOptions {
  queue: string;
  /** Handlers running at once. */
  concurrency: number;
  /** Most jobs claimed ahead of the handlers (the local buffer, counting fetches in flight). */
  prefetch: number;
  /** Most jobs per FETCH (default: half the prefetch). */
  fetchSize?: number;
  /** FETCHes in flight at once (default 2). */
  maxFetches?: number;
  /** `ackMany` batches in flight at once (default 2). */
  maxAcks?: number;
  workerId: string;
  /** Called as each handler starts. */
  onStart?: (job: Job) => void;
}

export class EngineWorker {
  private readonly buffer: Job[] = [];
  private running = 0;
  private stopped = false;
  /** The last fetch came back short: one fetch at a time until one comes back full. */
  private drained = false;
  /** FETCHes in flight, and the jobs they asked for. */
  private fetching = 0;
  private requested = 0;
  private pending: Array<{ job_id: string; worker_id: string }> = [];
  private acking = 0;
  private ackQueued = false;
  private readonly waits = new AbortController();
  private readonly fetchSize: number;
  private readonly maxFetches: number;
  private readonly maxAcks: number;

  constructor(
    private readonly engine: Engine,
    private readonly options: LoopOptions,
  ) {
    this.fetchSize = options.fetchSize ?? Math.max(1, Math.floor(options.prefetch / 2));
    this.maxFetches = options.maxFetches ?? 2;
    this.maxAcks = options.maxAcks ?? 2;
  }

  start(): this {
    this.refill();
    return this;
  }

  /** Stops fetching, finishes the buffered jobs and sends every ACK. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waits.abort(); // an idle long-poll ends now, not after its wait_ms

    while (this.fetching > 0 || this.acking > 0 || this.running > 0 || this.buffer.length > 0 || this.pending.length > 0) {
      this.dispatch();
      this.ack();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  private refill(): void {
    // Full-size fetches while there is room for one in the buffer; a short answer means the queue drained.
    while (!this.stopped && this.fetching < this.maxFetches && this.options.prefetch - this.buffer.length - this.requested >= this.fetchSize) {
      if (this.fetching > 0 && this.drained) return;
      const idle = this.buffer.length === 0 && this.running === 0 && this.fetching === 0;
      const count = this.fetchSize;
      this.fetching++;
      this.requested += count;
      void this.engine
        .fetch({ queues: [this.options.queue], count, worker_id: this.options.workerId, ...(idle ? { wait_ms: 1_000 } : {}) }, { signal: this.waits.signal })
        .then(
          ({ jobs }) => {
            for (const job of jobs) this.buffer.push(job);
            return jobs.length;
          },
          (error: unknown) => {
            console.error('fetch failed', error);
            return 0;
          },
        )
        .then((got) => {
          this.fetching--;
          this.requested -= count;
          this.drained = got < count;
          this.dispatch();
        });
    }
  }

  private dispatch(): void {
    while (this.running < this.options.concurrency && this.buffer.length > 0) this.run(this.buffer.shift()!);
    this.refill();
  }

  private run(job: Job): void {
    this.running++;
    this.options.onStart?.(job);
    // The no-op handler: resolves at once, as an async handler would.
    void Promise.resolve().then(() => {
      this.running--;
      this.pending.push({ job_id: job.id, worker_id: this.options.workerId });
      this.queueAck();
      this.dispatch();
    });
  }

  /** Sends at the end of this event-loop turn: every handler that finishes in the turn shares one ackMany. */
  private queueAck(): void {
    if (this.ackQueued) return;
    this.ackQueued = true;
    setImmediate(() => {
      this.ackQueued = false;
      this.ack();
    });
  }

  private ack(): void {
    while (this.acking < this.maxAcks && this.pending.length > 0) {
      const acks = this.pending;
      this.pending = [];
      this.acking++;
      this.engine.ackMany({ acks }).then(
        ({ results }) => {
          for (const r of results) if (!r.ok) console.error('ack refused', r);
          this.acking--;
          this.ack();
        },
        (error: unknown) => {
          console.error('ackMany failed', error);
          this.acking--;
        },
      );
    }
  }
}
