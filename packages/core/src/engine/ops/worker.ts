/** The worker operations: FETCH, ACK (single and batched), FAIL and BEAT. */
import type { ClaimParams, ClaimResult, CompleteItem, FailItem, TransitionResult } from '../../driver/driver.js';
import { OjsError } from '../../errors/ojs-error.js';
import type { EventInput } from '../../events/event.js';
import { STATE_ROLES } from '../../lifecycle/sets.js';
import { DISPATCH_EFFECTS } from '../../lifecycle/effects.js';
import { isUuidV7 } from '../../formats/ids.js';
import { timestampMs } from '../../formats/timestamps.js';
import type { Job } from '../../schemas/job.js';
import {
  parseAckBatchRequest,
  parseAckRequest,
  parseFetchRequest,
  parseHeartbeatRequest,
  parseNackRequest,
  type AckRequest,
  type FetchRequest,
} from '../../schemas/worker-requests.js';
import type { AckManyResponse, AckManyResult, AckResponse, FetchResponse, HeartbeatResponse, NackResponse } from '../../api/responses.js';
import { instant, type EngineContext } from '../context.js';
import { assertIdFormat, reservationError, staleAttemptError, transitionError } from '../conflicts.js';
import { buildJobError, decideFailure } from '../failure.js';
import { durationExtra, expiredEvent, failureEvents, jobEvent, startedExtra } from '../job-events.js';

/** Extra data of the event for a job a claim promoted on its way (event extras are read, never written). */
const PROMOTED_EXTRA: Readonly<Record<string, unknown>> = Object.freeze({ promoted: true });

/** Worker id recorded for claims whose FETCH named none. */
export const ANONYMOUS_WORKER = 'anonymous';

/**
 * FETCH: claim up to `count` jobs; when none and `wait_ms` is set, wait for work on these queues and claim
 * again. A wake-up from an insert this process just issued (WorkSignal) may come before that insert ran or
 * stored anything: when its claim finds nothing the FETCH waits on; any other wake-up, or the end of the wait,
 * is followed by one last claim. An abort of `signal` ends the wait without a claim: whoever asked is gone (a
 * client that hung up, a worker shutting down), and jobs claimed for it would sit reserved until their
 * visibility deadline.
 */
export async function fetchJobs(ctx: EngineContext, body: unknown, signal?: AbortSignal): Promise<FetchResponse> {
  const request = parseFetchRequest(body, ctx.settings.maxFetchCount);
  // A worker told to stop fetching gets no work here, after the wait it asked for (so a client that ignores
  // the directive does not spin).
  if (ctx.workerDirectives.refuses(request.workerId)) {
    if (request.waitMs > 0 && signal?.aborted !== true) await pause(request.waitMs, signal);
    return { jobs: [] };
  }
  // Listen before the first claim: work that arrives between an empty claim and the wait must not be missed.
  const wake = request.waitMs > 0 && signal?.aborted !== true ? waitForWork(ctx, request.queues, request.waitMs, signal) : undefined;
  let result = wake ? await firstClaim(ctx, request, wake) : await claim(ctx, request);
  if (wake && result.jobs.length === 0 && result.held) wake.held(result.held.retryInMs);
  if (wake) {
    while (result.jobs.length === 0) {
      const why = await wake.next();
      if (why === 'abort' || signal?.aborted) {
        wake.cancel();
        return { jobs: [] };
      }
      result = await claim(ctx, request);
      if (result.jobs.length === 0 && result.held) wake.held(result.held.retryInMs);
      if (why !== 'sent' && !(why === 'held' && result.held)) break;
    }
    wake.cancel();
  }
  const jobs = result.jobs;
  return jobs.length > 0 ? { jobs, job: jobs[0] } : { jobs };
}

/**
 * The first claim of a FETCH that may wait. An insert this process issues while that claim is out (WorkSignal)
 * runs after it, so the claim cannot see the insert's jobs, and claiming again only once it answers costs the
 * FETCH a round trip: the usual case of an idle worker re-arming its long-poll as the next job is enqueued. A
 * claim for at most the inserted jobs goes out at once instead, right behind the insert. Should both claims
 * bring jobs, together more than `count` (jobs were queued already), the surplus is handed back (`requeue`,
 * its attempt restored) as a worker hands back jobs it will not run. A failed claim loses nothing the other
 * brought.
 */
async function firstClaim(ctx: EngineContext, request: FetchRequest, wake: WorkWait): Promise<ClaimResult> {
  let behind: Promise<ClaimResult | undefined> | undefined;
  wake.onSent = (count) => {
    if (behind) return false;
    behind = claim(ctx, { ...request, count: Math.min(request.count, count) }).catch(() => undefined);
    return true;
  };
  let first: ClaimResult;
  try {
    first = await claim(ctx, request);
  } catch (error) {
    wake.onSent = undefined;
    const more = await behind;
    if (more && more.jobs.length > 0) return more;
    throw error;
  }
  wake.onSent = undefined;
  const more = await behind;
  if (!more || more.jobs.length === 0) return first;
  if (first.jobs.length === 0) return more;
  const room = request.count - first.jobs.length;
  await handBack(ctx, more.jobs.slice(room));
  return { ...first, jobs: [...first.jobs, ...more.jobs.slice(0, room)] };
}

/** Requeues jobs a FETCH claimed beyond its count, as a worker's FAIL with `requeue` would. */
async function handBack(ctx: EngineContext, jobs: readonly Job[]): Promise<void> {
  if (jobs.length === 0) return;
  const { now, nowIso } = instant(ctx);
  const items = jobs.map((job): FailItem => ({ id: job.id, outcome: 'requeue', attempt: job.attempt, ...(job.worker_id ? { workerId: job.worker_id } : {}) }));
  const results = await ctx.driver.jobFailMany({ jobs: items, now, nowIso });
  const events: EventInput[] = [];
  results.forEach((result, i) => {
    if (result.ok && 'job' in result && result.job)
      events.push(jobEvent('job.requeued', result.job, STATE_ROLES.claimed, nowIso, undefined, jobs[i]!.started_at));
  });
  await ctx.hub.emit(events);
}

/** One claim for `request` at the current instant, its events emitted. */
async function claim(ctx: EngineContext, request: FetchRequest): Promise<ClaimResult> {
  const params = claimParams(ctx, request);
  const result = await ctx.driver.jobClaim(params);
  const settled = afterClaim(ctx, result, params.nowIso);
  if (settled !== undefined) await settled;
  return result;
}

/** A claim for `request` at the current instant. */
function claimParams(ctx: EngineContext, request: FetchRequest): ClaimParams {
  const { now, nowIso } = instant(ctx);
  const params: ClaimParams = { queues: request.queues, limit: request.count, workerId: request.workerId ?? ANONYMOUS_WORKER, now, nowIso };
  if (request.visibilityMs !== undefined) params.visibilityMs = request.visibilityMs;
  return params;
}

/**
 * Emits a claim's events and advances the workflows of the jobs it expired. A promise only when there is
 * something to wait for (a transport publishing, a workflow member expired): the FETCH path stays free of
 * empty turns.
 */
function afterClaim(ctx: EngineContext, result: ClaimResult, nowIso: string): Promise<void> | undefined {
  const events: EventInput[] = [];
  for (const p of result.promoted) events.push(jobEvent('job.enqueued', p, p.from ?? null, nowIso, PROMOTED_EXTRA));
  for (const job of result.expired) events.push(expiredEvent(job, null, nowIso));
  // A driver with a dispatch log claims the jobs the log delivered (`pending`), the others claimable ones.
  const from = ctx.driver.capabilities.dispatchLog === true ? DISPATCH_EFFECTS.claim.from[0]! : STATE_ROLES.claimable;
  for (const job of result.jobs) events.push(jobEvent('job.started', job, from, nowIso, startedExtra(job.worker_id)));
  const published = ctx.hub.emit(events);
  let terminal = false;
  for (const job of result.expired) if (job.workflow_id) terminal = true;
  if (published === undefined && !terminal) return undefined;
  return settleClaim(ctx, published, result.expired);
}

async function settleClaim(ctx: EngineContext, published: void | Promise<void>, expired: readonly Job[]): Promise<void> {
  await published;
  for (const job of expired) if (job.workflow_id) await ctx.onTerminal(job);
}

/**
 * Why a waiting FETCH woke: `sent`, an insert this process issued to an ordered driver (its jobs may not be
 * stored yet, or at all); `work`, an event of work on the queues (an enqueue here or elsewhere, a retry, a
 * resumed queue); `timeout`, the end of `wait_ms`; `abort`, the caller's signal.
 */
type WakeReason = 'sent' | 'work' | 'held' | 'timeout' | 'abort';

/** Ranks wake-ups that came while nobody waited: the FETCH reacts to the weightiest. */
const WAKE_WEIGHT: Record<WakeReason, number> = { sent: 0, held: 1, work: 1, timeout: 2, abort: 3 };

/**
 * Listens for work on `queues` for `ms` (or until `signal` aborts). `next()` resolves with the next wake-up,
 * or with the weightiest one that came since the last `next()`; `cancel` stops listening.
 */
interface WorkWait {
  next: () => Promise<WakeReason>;
  cancel: () => void;
  /**
   * While set, an insert sent while nobody waits is offered here (with its number of available jobs) before
   * it is kept for the next `next()`; returning true means it was taken care of.
   */
  onSent?: ((count: number) => boolean) | undefined;
  /**
   * Rate limits held a job back: wake (`held`) when a job of the queues leaves `active` (a concurrency slot may
   * be free), and after `retryInMs` when given (a spacing ends).
   */
  held: (retryInMs?: number) => void;
}

function waitForWork(ctx: EngineContext, queues: string[], ms: number, signal?: AbortSignal): WorkWait {
  let waiting: ((why: WakeReason) => void) | undefined;
  let missed: WakeReason | undefined;
  let over = false;
  const wake = (why: WakeReason, count = 0) => {
    if (why === 'timeout' || why === 'abort') over = true;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(why);
    } else if (why === 'sent' && self.onSent?.(count)) {
      return;
    } else if (missed === undefined || WAKE_WEIGHT[why] > WAKE_WEIGHT[missed]) missed = why;
  };
  const onAbort = () => wake('abort');
  const timer = setTimeout(() => wake('timeout'), ms);
  signal?.addEventListener('abort', onAbort, { once: true });
  const filter = { types: ['job.enqueued', 'job.requeued', 'job.failed', 'queue.resumed'], queues };
  // Work enqueued in another process arrives through the transport; work enqueued in this one, at once.
  const unsubscribeHeard = ctx.hub.subscribe(filter, () => wake('work'));
  const unwatch = ctx.hub.watchEmits(filter, () => wake('work'));
  const unwatchSent = ctx.work.watch(queues, (count) => wake('sent', count));
  let unheld: (() => void) | undefined;
  let heldTimer: ReturnType<typeof setTimeout> | undefined;
  const self: WorkWait = {
    held: (retryInMs) => {
      if (unheld === undefined) {
        const freed = { types: ['job.completed', 'job.cancelled', 'job.discarded'], queues };
        const stopHeard = ctx.hub.subscribe(freed, () => wake('held'));
        const stopEmits = ctx.hub.watchEmits(freed, () => wake('held'));
        unheld = () => {
          stopHeard();
          stopEmits();
        };
      }
      if (retryInMs !== undefined && heldTimer === undefined) {
        heldTimer = setTimeout(() => {
          heldTimer = undefined;
          wake('held');
        }, Math.ceil(retryInMs));
      }
    },
    next: () => {
      if (missed !== undefined) {
        const why = missed;
        missed = undefined;
        return Promise.resolve(why);
      }
      // Past its end the wait answers at once: the FETCH makes its last claim.
      if (over) return Promise.resolve<WakeReason>('timeout');
      return new Promise<WakeReason>((resolve) => (waiting = resolve));
    },
    cancel: () => {
      clearTimeout(timer);
      if (heldTimer !== undefined) clearTimeout(heldTimer);
      unheld?.();
      signal?.removeEventListener('abort', onAbort);
      unsubscribeHeard();
      unwatch();
      unwatchSent();
    },
  };
  return self;
}

/** The `jobCompleteMany` item of an ACK request. */
function completeItem(ack: AckRequest): CompleteItem {
  const item: CompleteItem = { id: ack.jobId };
  if (ack.workerId) item.workerId = ack.workerId;
  if (ack.attempt !== undefined) item.attempt = ack.attempt;
  if (ack.hasResult) item.result = ack.result;
  return item;
}

/** Explains why a guarded ACK/FAIL lost: not found, not active, or held by another worker. */
async function explainRejection(
  ctx: EngineContext,
  result: Extract<TransitionResult, { ok: false }>,
  jobId: string,
  workerId: string | undefined,
  operation: string,
  attempt?: number,
): Promise<OjsError> {
  if (result.state === 'active' && (workerId || attempt !== undefined)) {
    const current = result.job ?? (await ctx.driver.jobGet(jobId))?.job;
    if (workerId && current?.worker_id && current.worker_id !== workerId) return reservationError(jobId, current.worker_id, workerId);
    if (attempt !== undefined && current && current.attempt !== attempt) return staleAttemptError(jobId, current.attempt, attempt);
  }
  return transitionError(result, jobId, operation, 'active');
}

function completedEvent(job: Job, time: string, startedAt?: string): EventInput {
  const started = startedAt ?? job.started_at;
  const duration = started ? timestampMs(job.completed_at ?? time) - timestampMs(started) : undefined;
  if (duration !== undefined && job.result === undefined) return jobEvent('job.completed', job, 'active', time, durationExtra(duration));
  const extra: Record<string, unknown> = {};
  if (duration !== undefined) extra.duration_ms = duration;
  if (job.result !== undefined) extra.result = job.result;
  return jobEvent('job.completed', job, 'active', time, extra);
}

/** ACK: `active → completed`, storing the result. */
export async function ack(ctx: EngineContext, body: unknown): Promise<AckResponse> {
  const request = parseAckRequest(body);
  assertIdFormat(request.jobId);
  const { now, nowIso } = instant(ctx);
  const [result] = await ctx.driver.jobCompleteMany({ jobs: [completeItem(request)], now, nowIso, returning: 'job' });
  if (!result!.ok) throw await explainRejection(ctx, result!, request.jobId, request.workerId, 'acknowledge', request.attempt);
  const job = (result as { job: Job }).job;
  const published = ctx.hub.emit([completedEvent(job, nowIso)]);
  if (published !== undefined) await published;
  if (job.workflow_id) await ctx.onTerminal(job);
  return { acknowledged: true, id: job.id, job_id: job.id, state: 'completed', completed_at: job.completed_at ?? nowIso, job };
}

/** Batched ACKs (ojskit extension): independent guarded completions in one driver round trip. */
export async function ackMany(ctx: EngineContext, body: unknown): Promise<AckManyResponse> {
  const requests = parseAckBatchRequest(body);
  const { now, nowIso } = instant(ctx);
  const needJobs = requests.some((r) => r.hasResult);
  const items: CompleteItem[] = [];
  // A malformed id cannot name a job: it is answered as not found without reaching the driver.
  let malformed = false;
  for (const r of requests) {
    if (isUuidV7(r.jobId)) items.push(completeItem(r));
    else malformed = true;
  }
  const stored = items.length === 0 ? [] : await ctx.driver.jobCompleteMany({ jobs: items, now, nowIso, returning: needJobs ? 'job' : 'summary' });
  let next = 0;
  const results: readonly TransitionResult[] = malformed ? requests.map((r) => (isUuidV7(r.jobId) ? stored[next++]! : { ok: false, state: null })) : stored;
  const events: EventInput[] = [];
  const out: AckManyResult[] = [];
  const terminal: Job[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const request = requests[i]!;
    if (r.ok) {
      out.push({ ok: true, job_id: request.jobId, state: 'completed' });
      if ('job' in r) {
        events.push(completedEvent(r.job, nowIso));
        if (r.job.workflow_id) terminal.push(r.job);
      } else {
        // a workflow member comes back in full (CompleteManyParams.returning): a summary has no workflow
        events.push(jobEvent('job.completed', r.summary, STATE_ROLES.claimed, nowIso));
      }
    } else {
      const err = await explainRejection(ctx, r, request.jobId, request.workerId, 'acknowledge', request.attempt);
      out.push({ ok: false, job_id: request.jobId, error: err.toBody() });
    }
  }
  await ctx.hub.emit(events);
  for (const job of terminal) await ctx.onTerminal(job);
  return { results: out };
}

/** FAIL: record the error, then retry, discard or dead-letter; or hand the job back with `requeue`. */
export async function nack(ctx: EngineContext, body: unknown): Promise<NackResponse> {
  const request = parseNackRequest(body);
  assertIdFormat(request.jobId);
  const { now, nowIso } = instant(ctx);
  const stored = await ctx.driver.jobGet(request.jobId);
  if (!stored) throw OjsError.notFound('job', request.jobId);
  const { job } = stored;
  if (job.state !== 'active') throw transitionError({ ok: false, state: job.state }, job.id, 'fail', 'active');
  if (request.workerId && job.worker_id && job.worker_id !== request.workerId) throw reservationError(job.id, job.worker_id, request.workerId);
  if (request.attempt !== undefined && request.attempt !== job.attempt) throw staleAttemptError(job.id, job.attempt, request.attempt);

  if (request.requeue) {
    const [result] = await ctx.driver.jobFailMany({ jobs: [{ id: job.id, outcome: 'requeue', attempt: job.attempt }], now, nowIso });
    if (!result!.ok) throw await explainRejection(ctx, result!, job.id, request.workerId, 'fail');
    const requeued = (result as { job: Job }).job;
    await ctx.hub.emit([jobEvent('job.requeued', requeued, 'active', nowIso, undefined, job.started_at)]);
    return { id: job.id, job_id: job.id, state: 'available', attempt: requeued.attempt, max_attempts: requeued.max_attempts, job: requeued };
  }

  const error = buildJobError(request.error, job.attempt, nowIso);
  const decision = decideFailure(stored, error, ctx.random);
  if (request.workerId) decision.item.workerId = request.workerId;
  const [result] = await ctx.driver.jobFailMany({ jobs: [decision.item], now, nowIso });
  if (!result!.ok) throw await explainRejection(ctx, result!, job.id, request.workerId, 'fail');
  const failed = (result as { job: Job }).job;
  await ctx.hub.emit(failureEvents(failed, nowIso, decision.deadLettered));
  if (failed.state === 'discarded' && failed.workflow_id) await ctx.onTerminal(failed);
  const response: NackResponse = { id: job.id, job_id: job.id, state: failed.state, attempt: failed.attempt, max_attempts: failed.max_attempts, job: failed };
  if (failed.state === 'retryable') {
    response.next_attempt_at = failed.next_attempt_at!;
    response.retry_delay_ms = failed.retry_delay_ms!;
  } else {
    response.discarded_at = failed.discarded_at!;
    response.completed_at = failed.completed_at!;
    response.dead_lettered = decision.deadLettered;
  }
  return response;
}

/** BEAT: record the worker, extend its active jobs' deadlines, return its directive and cancelled jobs. */
export async function heartbeat(ctx: EngineContext, body: unknown): Promise<HeartbeatResponse> {
  const request = parseHeartbeatRequest(body);
  const { now, nowIso } = instant(ctx);
  const worker = await ctx.driver.workerRecord({
    id: request.workerId,
    state: request.state ?? 'running',
    last_heartbeat_at: nowIso,
    lastHeartbeatMs: now,
    active_job_ids: request.jobIds,
    ...(request.hostname !== undefined ? { hostname: request.hostname } : {}),
    ...(request.pid !== undefined ? { pid: request.pid } : {}),
    ...(request.queues !== undefined ? { queues: request.queues } : {}),
    ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
    ...(request.labels !== undefined ? { labels: request.labels } : {}),
  });
  ctx.workerDirectives.note(worker.id, worker.directive);
  let extended: string[] = [];
  let cancelled: string[] = [];
  if (request.jobIds.length > 0) {
    const result = await ctx.driver.jobHeartbeat({
      ids: request.jobIds.filter(isUuidV7),
      now,
      workerId: request.workerId,
      ...(request.visibilityMs !== undefined ? { visibilityMs: request.visibilityMs } : {}),
    });
    extended = result.extended.map((j) => j.id);
    cancelled = request.jobIds.filter((id) => result.states[id] === 'cancelled');
    await ctx.hub.emit(
      result.extended.map((j) =>
        jobEvent('job.heartbeat', j, 'active', nowIso, { worker_id: j.worker_id ?? request.workerId, visible_until: new Date(j.visibleUntil).toISOString() }),
      ),
    );
  }
  return {
    state: worker.directive,
    directive: worker.directive,
    jobs_extended: extended,
    server_time: nowIso,
    ...(cancelled.length > 0 ? { jobs_cancelled: cancelled } : {}),
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
