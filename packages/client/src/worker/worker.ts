/**
 * `Worker`: fetches jobs in batches sized to its free slots (plus a small prefetch while there is a backlog), runs their handlers through the middleware
 * chain, acknowledges completions in batches, keeps reservations alive with heartbeats, and shuts down
 * gracefully. Works over any transport (an in-process `Engine` or HTTP).
 */
import { startTimer, type LongTimer } from '../timing/long-timer.js';
import { isOjsError, type Job as WireJob, type JobState, type OjsEvent } from '@ojskit/core';
import { HandlerNotFoundError, JobCancelledError, JobLostError, JobTimeoutError, WorkerClosingError } from '../errors.js';
import { jobFromWire, type Job } from '../mapping/job.js';
import { progressToWire } from '../mapping/progress.js';
import {
  failureFromThrown,
  fetchRequest,
  handlerNotFoundFailure,
  heartbeatRequest,
  nackRequest,
  releaseRequest,
  timeoutFailure,
  type FailureWire,
} from '../mapping/worker-protocol.js';
import type { AnyJobs, ArgsOf, JobRegistry, JobTypeOf, ResultOf } from '../registry.js';
import type { Transport } from '../transport/transport.js';
import { AckBatcher } from './ack-batcher.js';
import { Context, type ContextHost, type JobContext } from './job-context.js';
import { HeldJobs } from './held-jobs.js';
import { JobRun, type RunAckListener } from './job-run.js';
import { compose, type Handler, type Middleware } from './middleware.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './options.js';
import { PrefetchDepth } from './prefetch-depth.js';
import { RecentIds } from './recent-ids.js';
import { TypedEmitter } from './typed-emitter.js';
import { WakeSignal } from './wake-signal.js';

/** What became of a failed attempt. */
export interface FailOutcome {
  /** `retryable` (another attempt is scheduled) or `discarded`. */
  state: JobState;
  willRetry: boolean;
  nextAttemptAt?: Date;
  deadLettered?: boolean;
}

/** Events a worker emits. */
export type WorkerEvents = {
  /** The job's ACK was accepted. */
  completed: [job: Job, result: unknown];
  /** A handler threw, timed out or had no handler; the FAIL was accepted. */
  failed: [job: Job, error: unknown, outcome: FailOutcome];
  /** The job was cancelled elsewhere while it ran; its signal fired. */
  cancelled: [job: Job];
  /** The job was handed back to its queue at shutdown (its attempt not consumed). */
  released: [job: Job];
  /** Something went wrong outside a handler: a fetch, heartbeat, ACK or FAIL call, or a lost job. */
  error: [error: unknown, job?: Job];
  /** A heartbeat carried an operator directive (`quiet` stops fetching; `terminate` closes the worker). */
  directive: [directive: 'running' | 'quiet' | 'terminate'];
  closed: [];
};

/** Counters of the worker's traffic, for monitoring and benchmarks. */
export interface WorkerStats {
  fetchCalls: number;
  jobsFetched: number;
  ackCalls: number;
  jobsAcked: number;
  nackCalls: number;
  heartbeatCalls: number;
}

/** How many fetched job ids a worker remembers to recognise late job.enqueued events (RecentIds). */
const RECENT_IDS_KEPT = 1_000;

/** How a FETCH ended, for the loop's backoff. */
type FetchOutcome = 'jobs' | 'held-empty' | 'short-empty' | 'error' | 'closing';

/** Resolves after the current event-loop turn's I/O callbacks (`setImmediate` where there is one). */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => (typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate(resolve) : setTimeout(resolve, 0)));

/** How a handler's run ended: it returned, it threw, or the run was aborted first (the value is the reason). */
type OutcomeKind = 'ok' | 'error' | 'aborted';

/**
 * Processes jobs by type.
 * @example
 * const worker = new Worker(api, { queues: ['email'], concurrency: 20 });
 * worker.register('email.send', async ({ args: [to], signal }) => sendMail(to, { signal }));
 * worker.start();
 * process.on('SIGTERM', () => worker.close({ timeoutMs: 10_000 }));
 */
export class Worker<R extends JobRegistry<R> = AnyJobs> extends TypedEmitter<WorkerEvents> {
  readonly options: ResolvedWorkerOptions;
  private readonly handlers = new Map<string, Handler>();
  private readonly middleware: Middleware[] = [];
  private readonly chains = new Map<string, (ctx: JobContext) => Promise<unknown>>();
  private readonly runs = new Map<string, JobRun>();
  /** Jobs taken and not yet answered (ACK/FAIL/release), and who waits for that count to reach zero. */
  private unsettled = 0;
  private settledWaiters: Array<() => void> = [];
  private readonly wake = new WakeSignal();
  private readonly acks: AckBatcher;
  private readonly depth: PrefetchDepth;
  private readonly counters = { fetchCalls: 0, jobsFetched: 0, nackCalls: 0, heartbeatCalls: 0 };
  private status: 'idle' | 'running' | 'closing' | 'closed' = 'idle';
  private quiet = false;
  /** What heartbeats report once `close()` began: `quiet` while draining, `terminate` in the last one. */
  private leaving: 'quiet' | 'terminate' | undefined;
  private running = 0;
  /** Jobs claimed ahead of a free slot (prefetched during a backlog), oldest first; they start as slots free. */
  private readonly held = new HeldJobs();
  /** Jobs asked for by fetches still in flight: their slots are taken until they answer. */
  private requested = 0;
  private readonly fetches = new Set<Promise<FetchOutcome>>();
  /** The last fetch came back full (a backlog): keep a second fetch in flight. */
  private pipelining = false;
  /** A job.enqueued event arrived since the idle fetch went out. */
  private enqueuedSeen = false;
  /** Jobs fetched lately: their job.enqueued events, arriving late, are not news. */
  private readonly fetchedIds = new RecentIds(RECENT_IDS_KEPT);
  /** Aborted at shutdown: ends a long-polling fetch's wait at once instead of after `pollWaitMs`. */
  private readonly fetchWaits = new AbortController();
  private loop: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatInFlight: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly contextHost: ContextHost;
  private readonly ackListener: RunAckListener;

  constructor(
    readonly api: Transport,
    options: WorkerOptions = {},
  ) {
    super();
    this.options = resolveWorkerOptions(options);
    this.acks = new AckBatcher(api, this.options.workerId, this.options.ackBatch);
    this.depth = new PrefetchDepth(this.options.prefetch, this.options.adaptivePrefetch, this.options.adaptiveFetch);
    this.contextHost = {
      workerId: this.options.workerId,
      progress: (run, fraction, message, data) => this.reportProgress(run, fraction, message, data),
      heartbeat: (run) => this.heartbeatOne(run),
    };
    this.ackListener = {
      runAcked: (run) => this.acked(run),
      runAckRefused: (run, error) => {
        this.emitError(error, run.job);
        this.forget(run);
      },
    };
  }

  /** The id this worker reports to the server. */
  get workerId(): string {
    return this.options.workerId;
  }

  /** Handlers running right now. */
  get activeCount(): number {
    return this.running;
  }

  get stats(): WorkerStats {
    return { ...this.counters, ackCalls: this.acks.stats.calls, jobsAcked: this.acks.stats.acked };
  }

  /** Registers the handler of a job type (replacing any earlier one). */
  register<K extends JobTypeOf<R>>(type: K, handler: Handler<ArgsOf<R, K>, ResultOf<R, K>>): this {
    this.handlers.set(type, handler as unknown as Handler);
    this.chains.clear();
    return this;
  }

  /** Adds middleware around every handler; the first added is the outermost. */
  use(middleware: Middleware): this {
    this.middleware.push(middleware);
    this.chains.clear();
    return this;
  }

  /** Starts fetching. Register handlers first. */
  start(): this {
    if (this.status !== 'idle') throw new Error(`Worker ${this.workerId} cannot start: it is ${this.status}.`);
    this.status = 'running';
    if (this.options.listen) this.listen();
    this.scheduleHeartbeat();
    this.loop = this.fetchLoop();
    return this;
  }

  /**
   * Graceful shutdown: stops fetching, waits up to `timeoutMs` for running jobs, then aborts the rest
   * (their signal's reason is a `WorkerClosingError`) and releases them to their queue with their attempt
   * handed back. Resolves once every ACK and FAIL has been answered.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closing) return this.closing;
    const timeoutMs = options.timeoutMs ?? this.options.shutdownTimeoutMs;
    this.closing = this.shutdown(timeoutMs);
    return this.closing;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    const wasRunning = this.status === 'running';
    this.status = 'closing';
    this.fetchWaits.abort();
    this.wake.notify();
    if (wasRunning) {
      // Graceful-shutdown extension: the server learns at once that this worker takes no more work; the
      // heartbeats that keep its jobs reserved while they finish go on reporting `quiet`.
      this.leaving = 'quiet';
      const announced = this.announce();
      let timer: LongTimer | undefined;
      const deadline = new Promise<'deadline'>((resolve) => (timer = startTimer(() => resolve('deadline'), timeoutMs)));
      const drained = Promise.all([this.loop, this.allSettled()]).then(() => 'drained' as const);
      const first = await Promise.race([drained, deadline]);
      timer?.cancel();
      if (first === 'deadline') {
        for (const run of this.runs.values()) run.abort(new WorkerClosingError(run.id));
      }
      await this.loop;
      await this.allSettled();
      await this.acks.flush();
      await announced;
    }
    if (this.heartbeatTimer !== undefined) clearTimeout(this.heartbeatTimer);
    await this.heartbeatInFlight;
    if (wasRunning) {
      this.leaving = 'terminate';
      await this.announce();
    }
    this.unsubscribe?.();
    this.status = 'closed';
    this.emit('closed');
  }

  /** Waits until every job taken so far has been answered (ACK/FAIL/release). */
  private async allSettled(): Promise<void> {
    if (this.unsettled > 0) await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
  }

  // ---- fetching ------------------------------------------------------------------------------------

  /**
   * Keeps jobs coming. While the queue has a backlog (the last fetch came back full), the worker may hold up
   * to `prefetch` jobs beyond its free slots, and keeps up to two fetches in flight: the server claims the
   * next batch while this process runs and acknowledges the current one, so neither side waits a round trip
   * for the other (a fetch that answers sends the next one before its jobs run). Handlers never exceed the concurrency (jobs beyond it wait in `held`); slots asked for by
   * in-flight fetches count as taken. Once a fetch comes back short the queue is drained, and the loop goes
   * back to one (long-polling, backing off) fetch at a time within the concurrency.
   */
  private async fetchLoop(): Promise<void> {
    const { idleBackoff, fetchBatchSize } = this.options;
    let idleMs = idleBackoff.minMs;
    while (this.status === 'running') {
      // Let every handler that finishes in this turn free its slot first, so fetches are not cut into slivers.
      if (this.pipelining) await nextTurn();
      const free = this.freeSlots();
      if (this.status !== 'running') break;
      if (free <= 0 || this.quiet || this.fetches.size >= this.maxFetches()) {
        await this.wake.wait();
        continue;
      }
      // During a backlog the last fetch came back full: this one will not wait, so it asks for no long-poll
      // (a held fetch costs the server a wake-up subscription and a timer, and hears every enqueue meanwhile).
      const fetching = this.pipelining
        ? this.fetchBatch(Math.min(free, this.depth.fetchSize(fetchBatchSize)), 0)
        : this.fetchBatch(Math.min(free, fetchBatchSize), this.options.pollWaitMs);
      if (this.pipelining) {
        idleMs = idleBackoff.minMs;
        continue;
      }
      const outcome = await this.whileFetchOut(fetching);
      if (outcome === 'jobs') {
        // The queue is drained, so the next fetch will mostly wait. Let the ACKs of jobs that finish at once go
        // first: sent after it, an ACK waits behind the server's empty claim (measured on Redis: enqueue→completed
        // p50 −13–22 %). Two turns: the batcher sends at the end of a turn, possibly just after this one.
        await nextTurn();
        await nextTurn();
      }
      if (outcome === 'jobs' || outcome === 'closing') idleMs = idleBackoff.minMs;
      else if (outcome === 'error' || outcome === 'short-empty') {
        // A failed fetch, or an empty answer the server did not hold (no long-poll support, or capped): back
        // off instead of spinning. A wake-up (new job event, freed slot, shutdown) cuts the sleep short.
        await this.wake.wait(idleMs);
        idleMs = Math.min(idleMs * 2, idleBackoff.maxMs);
      }
    }
    // Jobs claimed by a fetch still out are released by it: wait, so nothing is handed back after close.
    while (this.fetches.size > 0) await Promise.all([...this.fetches]);
    const held = this.held.clear();
    await Promise.all(
      held.map(async (job) => {
        await this.release(jobFromWire(job));
        this.settledOne();
      }),
    );
  }

  /** Slots a new fetch may ask for: the concurrency, plus the prefetch while there is a backlog. */
  private freeSlots(): number {
    const capacity = this.options.concurrency + (this.pipelining ? this.depth.value : 0);
    return capacity - this.running - this.requested - this.held.size;
  }

  /** Fetches kept in flight: one when idle; during a backlog two, or one per prefetched batch plus one. */
  private maxFetches(): number {
    if (!this.pipelining) return 1;
    return Math.max(2, 1 + Math.ceil(this.depth.value / this.depth.fetchSize(this.options.fetchBatchSize)));
  }

  /**
   * During a backlog, sends full-size fetches while there is room for them: called as a fetch answers,
   * before its jobs run, so the backend is never idle while this process handles a batch.
   */
  private topUp(): void {
    const size = this.depth.fetchSize(this.options.fetchBatchSize);
    while (this.status === 'running' && !this.quiet && this.fetches.size < this.maxFetches() && this.freeSlots() >= size) {
      void this.fetchBatch(size, 0);
    }
  }

  /** Starts held jobs while slots are free. */
  private startHeld(): void {
    if (this.status !== 'running') return;
    while (this.running < this.options.concurrency) {
      const job = this.held.shift();
      if (!job) return;
      this.execute(job);
    }
  }

  /** A held job that is no longer ours (cancelled, or its reservation lost): forget it, never run it. */
  private dropHeld(id: string, lost?: Error): void {
    const job = this.held.get(id);
    if (!job) return;
    this.held.delete(id);
    if (lost) this.emitError(lost, jobFromWire(job));
    this.settledOne();
  }

  /** One taken job was answered (or dropped); wakes `allSettled()` once none is left. */
  private settledOne(): void {
    if (--this.unsettled === 0 && this.settledWaiters.length > 0) {
      const waiters = this.settledWaiters;
      this.settledWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /**
   * Waits for an idle (long-polling) fetch. A job enqueued meanwhile may escape it (the server can miss a
   * wake-up between its empty claim and its wait): when such an event arrives and slots the fetch did not
   * ask for are free, a short fetch for those slots takes the job at once.
   */
  private async whileFetchOut(fetching: Promise<FetchOutcome>): Promise<FetchOutcome> {
    this.enqueuedSeen = false;
    let outcome: FetchOutcome | undefined;
    void fetching.then((o) => (outcome = o));
    for (;;) {
      await Promise.race([fetching, this.wake.wait()]);
      // The fetch out may be answering with that very job (an engine in this process can claim it right behind
      // its insert, so the answer and the event arrive together): give it a turn before fetching again.
      if (outcome === undefined && this.enqueuedSeen) await nextTurn();
      if (outcome !== undefined) break;
      const free = this.freeSlots();
      if (this.status === 'running' && this.enqueuedSeen && free > 0 && !this.quiet) {
        this.enqueuedSeen = false;
        void this.fetchBatch(Math.min(free, this.options.fetchBatchSize), 0);
      }
    }
    this.wake.abandon();
    return outcome;
  }

  /** One FETCH of up to `count` jobs, its slots reserved until it answers; starts the jobs it returns. */
  private fetchBatch(count: number, pollWaitMs = this.options.pollWaitMs): Promise<FetchOutcome> {
    this.requested += count;
    const fetching = (async (): Promise<FetchOutcome> => {
      const startedAt = performance.now();
      let jobs: WireJob[];
      try {
        this.counters.fetchCalls += 1;
        const response = await this.api.fetch(
          fetchRequest({
            queues: this.options.queues,
            count,
            workerId: this.workerId,
            visibilityTimeoutMs: this.options.visibilityTimeoutMs,
            waitMs: pollWaitMs,
          }),
          { signal: this.fetchWaits.signal },
        );
        jobs = response.jobs ?? [];
      } catch (error) {
        this.pipelining = false;
        this.emitError(error);
        return 'error';
      } finally {
        this.requested -= count;
      }
      this.counters.jobsFetched += jobs.length;
      if (pollWaitMs === 0 && jobs.length > 0) this.depth.fetched(performance.now() - startedAt);
      this.pipelining = jobs.length === count && this.options.concurrency + this.options.prefetch > 1;
      if (this.status !== 'running') {
        // Shutdown began while the fetch was out: give these back untouched.
        await Promise.all(jobs.map((job) => this.release(jobFromWire(job))));
        return 'closing';
      }
      for (const job of jobs) {
        this.fetchedIds.add(job.id);
        // Our own earlier attempt of this job lost its reservation and came back to us: that attempt's handler
        // must stop and its ACK must not complete the new attempt.
        const previous = this.runs.get(job.id);
        if (previous?.phase === 'running') previous.abort(new JobLostError(job.id, 'active'));
        else if (previous) this.acks.withdraw(job.id, new JobLostError(job.id, 'active'));
        // A held job that came back is a newer attempt of it: it replaces the held one, which is not counted twice.
        if (!this.held.delete(job.id)) this.unsettled += 1;
        this.held.add(job);
      }
      // Ask for the next batch before running this one, so the backend claims it while this process works.
      if (this.pipelining) this.topUp();
      this.startHeld();
      if (jobs.length > 0) return 'jobs';
      const held = performance.now() - startedAt;
      return pollWaitMs === 0 || held < pollWaitMs / 2 ? 'short-empty' : 'held-empty';
    })();
    this.fetches.add(fetching);
    void fetching.finally(() => {
      this.fetches.delete(fetching);
      // Only a loop asleep on its fetch limit needs this; an idle loop awaits the fetch itself and must keep its backoff.
      this.wake.notifyWaiting();
    });
    return fetching;
  }

  private listen(): void {
    try {
      this.unsubscribe = this.api.subscribe({ types: ['job.enqueued', 'job.cancelled'], queues: [...this.options.queues] }, (event: OjsEvent) => {
        if (event.type === 'job.enqueued') {
          if (this.fetchedIds.has(String(event.data.job_id ?? event.subject))) return;
          this.enqueuedSeen = true;
          this.wake.notify();
        } else {
          const id = String(event.data.job_id ?? event.subject);
          const run = this.runs.get(id);
          run?.abort(new JobCancelledError(run.id));
          this.dropHeld(id);
        }
      });
    } catch {
      // No live events on this transport: long-polling, backoff and heartbeats still cover everything.
    }
  }

  // ---- running one job -----------------------------------------------------------------------------

  /**
   * Starts one job. Its outcome is handled by callbacks rather than by awaiting a race of promises: the
   * worker's per-job cost on a busy queue is mostly promises, closures and the ticks spent awaiting them.
   */
  private execute(wire: WireJob): void {
    const run = new JobRun(wire, this.ackListener);
    this.runs.set(run.id, run);
    this.running += 1;
    run.startedAt = performance.now();
    const handler = this.handlers.get(wire.type);
    if (!handler) {
      this.finish(run, 'error', new HandlerNotFoundError(wire.type));
      return;
    }
    const timeoutMs = wire.timeout_ms;
    if (timeoutMs !== undefined && timeoutMs > 0) run.timer = startTimer(() => run.abort(new JobTimeoutError(run.id, timeoutMs)), timeoutMs);
    // First of: the handler settles, or the run is aborted (the handler may ignore its signal; it is not awaited).
    run.whenAborted((reason) => this.finish(run, 'aborted', reason));
    this.runChain(wire.type, new Context(run, this.contextHost)).then(
      (result) => this.finish(run, 'ok', result),
      (error: unknown) => this.finish(run, 'error', error),
    );
  }

  /** The handler settled or the run was aborted, whichever came first: frees the slot and reports the outcome. */
  private finish(run: JobRun, kind: OutcomeKind, value: unknown): void {
    if (run.phase !== 'running') return;
    // A handler that reacted to its abort settles after it: the abort reason decides what is reported.
    if (run.abortReason && kind !== 'aborted') {
      kind = 'aborted';
      value = run.abortReason;
    }
    run.timer?.cancel();
    const elapsedMs = performance.now() - run.startedAt;
    this.depth.handled(elapsedMs);
    run.phase = 'settling';
    this.running -= 1;
    if (this.held.size > 0) this.startHeld();
    this.wake.notify();
    if (kind === 'ok') {
      run.result = value;
      // The run hears how its ACK ended, and tells ackListener.
      this.acks.add(run);
      return;
    }
    void this.settleFailure(run, kind, value, elapsedMs).finally(() => this.forget(run));
  }

  /** The server accepted a run's ACK. */
  private acked(run: JobRun): void {
    // A server that does not guard ACKs by attempt accepted this one although the job had already come
    // back to us for a newer attempt: the job is completed, so that newer attempt must stop.
    const newer = this.runs.get(run.id);
    if (newer && newer !== run) newer.abort(new JobLostError(run.id, 'completed'));
    if (this.listenerCount('completed') > 0) this.emit('completed', run.job, run.result);
    this.forget(run);
  }

  /** A run's outcome has been answered: it is no longer ours. */
  private forget(run: JobRun): void {
    // The job may already be running again here (a new attempt after a lost reservation): keep that entry.
    if (this.runs.get(run.id) === run) this.runs.delete(run.id);
    this.settledOne();
  }

  private runChain(type: string, ctx: JobContext): Promise<unknown> {
    let chain = this.chains.get(type);
    if (!chain) {
      const handler = this.handlers.get(type)!;
      chain = this.middleware.length > 0 ? compose(this.middleware, handler) : (c) => handler(c) as Promise<unknown>;
      this.chains.set(type, chain);
    }
    // A handler that throws synchronously (or returns a plain value) is reported like an async one.
    try {
      return Promise.resolve(chain(ctx));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reports progress for a run (used by its context). */
  private async reportProgress(run: JobRun, fraction: number, message?: string, data?: unknown): Promise<void> {
    const response = await this.api.setProgress(run.id, progressToWire(fraction, message, data));
    if (response.state === 'cancelled') run.abort(new JobCancelledError(run.id));
  }

  /** Extends one run's reservation now (used by its context). */
  private async heartbeatOne(run: JobRun): Promise<void> {
    const response = await this.api.heartbeat(heartbeatRequest({ ...this.heartbeatBase(), activeJobIds: [run.id] }));
    if (response.jobs_cancelled?.includes(run.id)) run.abort(new JobCancelledError(run.id));
  }

  /** Tells the server how a failed or aborted attempt ended. */
  private async settleFailure(run: JobRun, kind: 'error' | 'aborted', value: unknown, elapsedMs: number): Promise<void> {
    const { job } = run;
    if (kind === 'error') {
      const failure = value instanceof HandlerNotFoundError ? handlerNotFoundFailure(job.type) : failureFromThrown(value);
      return this.fail(job, failure, value);
    }
    const reason = value;
    if (reason instanceof JobCancelledError) this.emit('cancelled', job);
    else if (reason instanceof JobTimeoutError) await this.fail(job, timeoutFailure(reason.timeoutMs, elapsedMs), reason);
    else if (reason instanceof WorkerClosingError) {
      // Release only once our last fetch has returned, or that fetch could claim the released job right back.
      await this.loop;
      await this.release(job);
    } else if (reason instanceof JobLostError) this.emitError(reason, job);
    else await this.fail(job, failureFromThrown(reason), reason);
  }

  private async fail(job: Job, failure: FailureWire, error: unknown): Promise<void> {
    try {
      this.counters.nackCalls += 1;
      const response = await this.api.nack(nackRequest(job.id, job.attempt, this.workerId, failure));
      const outcome: FailOutcome = { state: response.state, willRetry: response.state === 'retryable' };
      if (response.next_attempt_at) outcome.nextAttemptAt = new Date(response.next_attempt_at);
      if (response.dead_lettered !== undefined) outcome.deadLettered = response.dead_lettered;
      this.emit('failed', job, error, outcome);
    } catch (nackError) {
      this.emitError(nackError, job);
    }
  }

  /** Hands a job back to its queue without consuming its attempt. */
  private async release(job: Job): Promise<void> {
    try {
      this.counters.nackCalls += 1;
      await this.api.nack(releaseRequest(job.id, job.attempt, this.workerId));
      this.emit('released', job);
    } catch (error) {
      this.emitError(error, job);
    }
  }

  // ---- heartbeats ----------------------------------------------------------------------------------

  /** Heartbeat fields common to every beat. */
  heartbeatBase(): Omit<Parameters<typeof heartbeatRequest>[0], 'activeJobIds'> {
    const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
    return {
      workerId: this.workerId,
      visibilityTimeoutMs: this.options.visibilityTimeoutMs,
      state: this.leaving ?? (this.quiet ? 'quiet' : 'running'),
      queues: this.options.queues,
      concurrency: this.options.concurrency,
      ...(pid !== undefined ? { pid } : {}),
    };
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeatInFlight = this.beat().finally(() => {
        this.heartbeatInFlight = undefined;
        if (this.status === 'running' || this.status === 'closing') this.scheduleHeartbeat();
      });
    }, this.options.heartbeatIntervalMs);
  }

  /** Extends every job's reservation (running or held) and stops jobs the server reports cancelled or no longer ours. */
  private async beat(): Promise<void> {
    const ids = [...this.runs.keys(), ...this.held.ids()];
    let response;
    try {
      this.counters.heartbeatCalls += 1;
      response = await this.api.heartbeat(heartbeatRequest({ ...this.heartbeatBase(), activeJobIds: ids }));
    } catch (error) {
      this.emitError(error);
      return;
    }
    const cancelled = new Set(response.jobs_cancelled ?? []);
    for (const id of cancelled) {
      this.runs.get(id)?.abort(new JobCancelledError(id));
      this.dropHeld(id);
    }
    const extended = new Set(response.jobs_extended ?? []);
    const missing = ids.filter((id) => !extended.has(id) && !cancelled.has(id) && (this.runs.get(id)?.phase === 'running' || this.held.has(id)));
    await Promise.all(missing.map((id) => this.verifyHeld(id)));
    this.applyDirective(response.state ?? response.directive);
  }

  /**
   * A heartbeat that only reports this worker's state as it leaves (no job ids: those the timer's beats
   * extend). Best effort: a server already gone must not fail or delay the shutdown.
   */
  private async announce(): Promise<void> {
    try {
      this.counters.heartbeatCalls += 1;
      await this.api.heartbeat(heartbeatRequest({ ...this.heartbeatBase(), activeJobIds: [] }));
    } catch {
      // the worker is leaving: its jobs' reservations expire on their own if this never arrives
    }
  }

  /** A running job the heartbeat did not extend: find out whether it was cancelled or taken away. */
  private async verifyHeld(id: string): Promise<void> {
    try {
      const { job } = await this.api.getJob(id);
      if (this.held.has(id)) {
        if (job.state === 'cancelled') this.dropHeld(id);
        else if (job.state !== 'active' || (job.worker_id !== undefined && job.worker_id !== this.workerId)) {
          this.dropHeld(id, new JobLostError(id, job.state));
        }
        return;
      }
      const run = this.runs.get(id);
      if (!run) return;
      if (job.state === 'cancelled') run.abort(new JobCancelledError(id));
      else if (job.state !== 'active' || (job.worker_id !== undefined && job.worker_id !== this.workerId)) {
        run.abort(new JobLostError(id, job.state));
      }
    } catch (error) {
      const run = this.runs.get(id);
      if (isOjsError(error) && error.code === 'not_found' && this.held.has(id)) this.dropHeld(id, new JobLostError(id, null));
      else if (run && isOjsError(error) && error.code === 'not_found') run.abort(new JobLostError(id, null));
      else this.emitError(error);
    }
  }

  private applyDirective(directive: 'running' | 'quiet' | 'terminate' | undefined): void {
    if (directive === undefined) return;
    const quiet = directive !== 'running';
    if (quiet !== this.quiet) {
      this.quiet = quiet;
      this.emit('directive', directive);
      this.wake.notify();
    }
    if (directive === 'terminate' && this.status === 'running') void this.close();
  }

  private emitError(error: unknown, job?: Job): void {
    if (this.listenerCount('error') === 0) {
      // Never swallow silently: with no listener, report on the console like an unhandled 'error' would.
      console.error(`[ojskit worker ${this.workerId}]`, error);
      return;
    }
    if (job) this.emit('error', error, job);
    else this.emit('error', error);
  }
}
