/** Operations on one job by id: INFO, CANCEL, ACTIVATE and progress. */
import { OjsError } from '../../errors/ojs-error.js';
import { EFFECTS, effectChanges } from '../../lifecycle/effects.js';
import { STATE_ROLES, STATE_SETS } from '../../lifecycle/sets.js';
import type { Job } from '../../schemas/job.js';
import { parseProgressRequest } from '../../schemas/worker-requests.js';
import type { JobResponse, ProgressResponse } from '../../api/responses.js';
import type { StoredJob } from '../../driver/records.js';
import { instant, type EngineContext } from '../context.js';
import { assertIdFormat, transitionError } from '../conflicts.js';
import { jobEvent } from '../job-events.js';
import { noteOf } from '../../history/job-history.js';

/** The cancel source recorded in a job's history when a client cancels it (other sources name themselves). */
const CANCELLED_BY_CLIENT = 'client';

async function load(ctx: EngineContext, id: string): Promise<StoredJob> {
  assertIdFormat(id);
  const stored = await ctx.driver.jobGet(id);
  if (!stored) throw OjsError.notFound('job', id);
  return stored;
}

/** INFO: side-effect free. */
export async function getJob(ctx: EngineContext, id: string): Promise<JobResponse> {
  return { job: (await load(ctx, id)).job };
}

/** Fields and internals every path into `cancelled` writes (`EFFECTS.cancel`). */
export function cancelChanges(now: number, nowIso: string) {
  return effectChanges(EFFECTS.cancel, now, nowIso);
}

/** Cancels a job by id; the hook lets workflows react. Returns the cancelled job and its previous state. */
export async function cancelJobById(ctx: EngineContext, id: string, reason?: string): Promise<{ job: Job; from: string }> {
  assertIdFormat(id);
  const { now, nowIso } = instant(ctx);
  const note = noteOf(EFFECTS.cancel, nowIso, reason ?? CANCELLED_BY_CLIENT);
  const result = await ctx.driver.jobTransition({ id, from: EFFECTS.cancel.from, to: EFFECTS.cancel.to, ...cancelChanges(now, nowIso), note });
  if (!result.ok) throw transitionError(result, id, 'cancel');
  const job = (result as { job: Job }).job;
  await ctx.hub.emit([jobEvent('job.cancelled', job, result.from, nowIso, reason ? { reason } : {})]);
  if (job.workflow_id) await ctx.onTerminal(job);
  return { job, from: result.from };
}

/** CANCEL: any non-terminal state → `cancelled`; an active job's worker gets 409 on its later ACK/FAIL. */
export async function cancelJob(ctx: EngineContext, id: string): Promise<JobResponse> {
  const { job, from } = await cancelJobById(ctx, id);
  return { job: { ...job, previous_state: from } };
}

/** ACTIVATE: `pending → available`. */
export async function activateJob(ctx: EngineContext, id: string): Promise<JobResponse> {
  assertIdFormat(id);
  const { now, nowIso } = instant(ctx);
  const { from, to } = EFFECTS.activate;
  const result = await ctx.driver.jobTransition({
    id,
    from,
    to,
    set: effectChanges(EFFECTS.activate, now, nowIso).set,
    note: noteOf(EFFECTS.activate, nowIso),
  });
  if (!result.ok) throw transitionError(result, id, 'activate', STATE_ROLES.pending);
  const job = (result as { job: Job }).job;
  await ctx.hub.emit([jobEvent('job.enqueued', job, STATE_ROLES.pending, nowIso, { priority: job.priority, activated: true })]);
  return { job: { ...job, previous_state: STATE_ROLES.pending } };
}

function progressView(stored: StoredJob): ProgressResponse {
  const p = stored.x.progress;
  // An ACK completes whatever progress was reported; deriving it here keeps the ACK a blind compare-and-set.
  const reported = p?.progress ?? null;
  const progress = stored.job.state === 'completed' && p ? 1 : reported;
  return {
    job_id: stored.job.id,
    state: stored.job.state,
    progress,
    message: p?.message ?? null,
    data: p?.data ?? null,
    updated_at: p?.updated_at ?? null,
  };
}

export async function getProgress(ctx: EngineContext, id: string): Promise<ProgressResponse> {
  return progressView(await load(ctx, id));
}

/**
 * Progress of an active job: never decreases within an attempt, replaces message/data, and counts as a
 * heartbeat. Updates to jobs in other states change nothing and return what is stored.
 */
export async function setProgress(ctx: EngineContext, id: string, body: unknown): Promise<ProgressResponse> {
  const request = parseProgressRequest(body);
  const stored = await load(ctx, id);
  if (stored.job.state !== 'active') return progressView(stored);
  const { now, nowIso } = instant(ctx);
  const previous = stored.x.progress;
  const progress = request.progress === undefined ? (previous?.progress ?? null) : Math.max(request.progress, previous?.progress ?? 0);
  const next = {
    progress,
    message: request.message ?? previous?.message ?? null,
    data: request.data ?? previous?.data ?? null,
    updated_at: nowIso,
  };
  const extendBy = stored.x.claimVisibilityMs ?? stored.x.visibilityMs;
  // An in-place update of a held job (the table has no row for it: from must name the state itself).
  const result = await ctx.driver.jobTransition({
    id,
    from: STATE_SETS.held,
    to: STATE_ROLES.claimed,
    expect: { attempt: stored.job.attempt },
    x: { progress: next, visibleUntil: now + extendBy },
  });
  if (!result.ok) return progressView((await ctx.driver.jobGet(id)) ?? stored);
  await ctx.hub.emit([jobEvent('job.progress', stored.job, 'active', nowIso, { progress: next.progress, ...(next.message ? { message: next.message } : {}) })]);
  return { job_id: id, state: 'active', ...next };
}
