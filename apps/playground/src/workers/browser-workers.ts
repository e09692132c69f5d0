/**
 * Workers running in this browser tab: the SDK's `Worker` over HTTP, exactly as a Node service would run
 * it, with knobs that shape each attempt (duration, failure rate, whether the handler honours cancellation)
 * and a "crash" that claims a job and vanishes so the server's visibility timeout has to rescue it.
 */
import { NonRetryableError, Worker, type HttpTransport } from '@ojskit/client';

/** The job type the knob-driven worker handles (the enqueue form's default). */
export const PLAYGROUND_JOB_TYPE = 'playground.task';

export interface WorkerKnobs {
  queues: string[];
  concurrency: number;
  /** How long each attempt takes (ms). */
  durationMs: number;
  /** Chance in [0, 1] that an attempt throws. */
  failureRate: number;
  /** When true the handler stops as soon as its signal fires (the job is cancelled); when false it runs on. */
  cooperativeCancel: boolean;
}

export const DEFAULT_KNOBS: WorkerKnobs = { queues: ['playground'], concurrency: 4, durationMs: 600, failureRate: 0.2, cooperativeCancel: true };

/** Args the worker understands on top of the knobs, so a single job can ask for its own behaviour. */
interface TaskArgs {
  fail?: boolean | 'permanent';
  ms?: number;
}

/** Sleeps `ms`, or rejects with the signal's reason when `signal` (if given) fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class BrowserWorkers {
  private worker: Worker | undefined;
  knobs: WorkerKnobs = { ...DEFAULT_KNOBS };
  completed = 0;
  failed = 0;
  cancelled = 0;
  crashed = 0;
  version = 0;

  constructor(private readonly api: HttpTransport) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** (Re)starts the worker with the current knobs. */
  async start(knobs: Partial<WorkerKnobs> = {}): Promise<void> {
    await this.stop();
    this.knobs = { ...this.knobs, ...knobs };
    const worker = new Worker(this.api, {
      queues: this.knobs.queues,
      concurrency: this.knobs.concurrency,
      workerId: `browser-${Math.random().toString(36).slice(2, 8)}`,
    });
    worker.register(PLAYGROUND_JOB_TYPE, async ({ args, signal }) => {
      const options = (args[0] ?? {}) as TaskArgs;
      const ms = typeof options.ms === 'number' ? options.ms : this.knobs.durationMs;
      if (this.knobs.cooperativeCancel) await sleep(ms, signal);
      else await sleep(ms);
      if (options.fail === 'permanent') throw new NonRetryableError('asked to fail for good');
      if (options.fail === true || Math.random() < this.knobs.failureRate) throw new Error('simulated failure (failure-rate knob)');
      return { tookMs: ms, at: new Date().toISOString() };
    });
    worker.on('completed', () => this.bump('completed'));
    worker.on('failed', () => this.bump('failed'));
    worker.on('error', () => undefined);
    this.worker = worker.start();
    this.version += 1;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.version += 1;
    if (worker) await worker.close({ timeoutMs: 2_000 });
  }

  /**
   * Claims one job from `queue` with a short reservation and never heartbeats, acknowledges or releases it:
   * a worker process that died mid-job. The server's rescuer returns it to `available` when the
   * reservation lapses. Returns the claimed job's id, if any.
   */
  async crash(queue: string, visibilityTimeoutMs = 1_500): Promise<string | undefined> {
    const { jobs } = await this.api.fetch({
      queues: [queue],
      count: 1,
      worker_id: `crashing-${Math.random().toString(36).slice(2, 8)}`,
      visibility_timeout_ms: visibilityTimeoutMs,
    });
    const job = jobs[0];
    if (job) this.bump('crashed');
    return job?.id;
  }

  private bump(field: 'completed' | 'failed' | 'cancelled' | 'crashed'): void {
    this[field] += 1;
    this.version += 1;
  }
}
