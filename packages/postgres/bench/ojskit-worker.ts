/**
 * The worker loop the benchmark runs ojskit with, straight on the Engine (what the SDK's Worker does on its
 * hot path, kept here so the benchmark measures the engine and the driver without a package cycle):
 * - FETCH claims up to `prefetch` jobs into a local buffer (one fetch in flight), as graphile-worker's
 *   local queue does; `concurrency` handlers take jobs from it;
 * - completions wait while an `ackMany` is in flight and then go out together: the batch grows with the
 *   database's latency, and an idle worker's lone ACK leaves at once.
 */
import type { Engine, Job } from '@ojskit/core';

export interface LoopOptions {
  queue: string;
  /** Handlers running at once. */
  concurrency: number;
  /** Most jobs claimed ahead of the handlers (fetch count). */
  prefetch: number;
  workerId: string;
  /** Called as each handler starts. */
  onStart?: (job: Job) => void;
}

export class EngineWorker {
  private readonly buffer: Job[] = [];
  private running = 0;
  private stopped = false;
  private fetching: Promise<void> | undefined;
  private pending: Array<{ job_id: string; worker_id: string }> = [];
  private acking: Promise<void> | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly options: LoopOptions,
  ) {}

  start(): this {
    this.refill();
    return this;
  }

  /** Stops fetching, finishes the buffered jobs and sends every ACK. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.fetching || this.acking || this.running > 0 || this.buffer.length > 0 || this.pending.length > 0) {
      this.dispatch();
      this.ack();
      await (this.fetching ?? this.acking ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  private refill(): void {
    if (this.fetching || this.stopped) return;
    // Refill once the buffer is half empty, so each claim brings a large batch (as a local queue does).
    const room = this.options.prefetch - this.buffer.length;
    if (room < this.options.prefetch / 2) return;
    const idle = this.buffer.length === 0 && this.running === 0;
    this.fetching = this.engine
      .fetch({ queues: [this.options.queue], count: room, worker_id: this.options.workerId, ...(idle ? { wait_ms: 1_000 } : {}) })
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
        this.fetching = undefined;
        this.dispatch();
        // An empty fetch long-polled already; a short one means the queue is draining.
        if (got > 0 || this.buffer.length + this.running === 0) this.refill();
      });
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
      this.ack();
      this.dispatch();
    });
  }

  private ack(): void {
    if (this.acking || this.pending.length === 0) return;
    const acks = this.pending;
    this.pending = [];
    this.acking = this.engine.ackMany({ acks }).then(
      ({ results }) => {
        for (const r of results) if (!r.ok) console.error('ack refused', r);
        this.acking = undefined;
        this.ack();
      },
      (error: unknown) => {
        console.error('ackMany failed', error);
        this.acking = undefined;
      },
    );
  }
}
