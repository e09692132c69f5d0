/** The dead-letter queue: jobs discarded with `on_exhaustion: dead_letter` (or `DEAD_LETTER`), listed, retried, deleted. */
import { noteOf } from '../../history/job-history.js';
import type { ListQuery } from '../../api/ojs-api.js';
import type { BulkActionResponse, DeadLetterDeleteResponse, DeadLetterStatsResponse, JobListResponse, JobResponse } from '../../api/responses.js';
import { OjsError } from '../../errors/ojs-error.js';
import { EFFECTS, effectChanges } from '../../lifecycle/effects.js';
import { STATE_ROLES } from '../../lifecycle/sets.js';
import { parseTimestamp } from '../../formats/timestamps.js';
import type { Job } from '../../schemas/job.js';
import { checkJobType, checkQueue, invalidField, isPlainObject, requireObject } from '../../schemas/fields.js';
import { instant, type EngineContext } from '../context.js';
import { assertIdFormat } from '../conflicts.js';
import { jobEvent } from '../job-events.js';
import { pagination, pageWindow } from '../pagination.js';

const SCAN_PAGE = 500;

export async function listDeadLetter(ctx: EngineContext, query?: ListQuery & { queue?: string; type?: string }): Promise<JobListResponse> {
  const { limit, offset } = pageWindow(query);
  if (query?.queue !== undefined) checkQueue(query.queue);
  if (query?.type !== undefined) checkJobType(query.type);
  const { jobs, total } = await ctx.driver.jobList({
    deadLetter: true,
    state: STATE_ROLES.deadLetter,
    limit,
    offset,
    ...(query?.queue ? { queue: query.queue } : {}),
    ...(query?.type ? { type: query.type } : {}),
  });
  return { jobs, pagination: pagination(total, limit, offset) };
}

async function loadDeadLettered(ctx: EngineContext, id: string): Promise<Job> {
  assertIdFormat(id, 'dead_letter_job');
  const stored = await ctx.driver.jobGet(id);
  if (!stored || stored.job.state !== STATE_ROLES.deadLetter || !stored.x.deadLetter) {
    throw new OjsError('not_found', `Job '${id}' is not in the dead-letter queue.`, { details: { resource_type: 'dead_letter_job', resource_id: id } });
  }
  return stored.job;
}

export async function getDeadLetter(ctx: EngineContext, id: string): Promise<JobResponse> {
  return { job: await loadDeadLettered(ctx, id) };
}

/** Lifecycle #19 from the DLQ: attempt reset, failure fields cleared, error history kept. */
export async function retryDeadLetter(ctx: EngineContext, id: string, body?: unknown): Promise<JobResponse> {
  assertIdFormat(id, 'dead_letter_job');
  if (body !== undefined && body !== null) {
    const request = requireObject(body);
    // The protocol's optional override (queue, meta, retry) is not implemented: refused rather than ignored.
    if (request.override !== undefined) {
      throw new OjsError('unsupported', 'Dead-letter retry does not support "override": retry the job as it is.', { details: { field: 'override' } });
    }
  }
  const { now, nowIso } = instant(ctx);
  const { from, to } = EFFECTS.deadLetterRetry;
  const changes = effectChanges(EFFECTS.deadLetterRetry, now, nowIso);
  const note = noteOf(EFFECTS.deadLetterRetry, nowIso);
  const result = await ctx.driver.jobTransition({
    id,
    from,
    to,
    expect: { deadLetter: true },
    set: { attempt: 0, ...changes.set },
    unset: changes.unset,
    x: changes.x,
    note,
  });
  if (!result.ok) {
    throw new OjsError('not_found', `Job '${id}' is not in the dead-letter queue.`, { details: { resource_type: 'dead_letter_job', resource_id: id } });
  }
  const job = (result as { job: Job }).job;
  await ctx.hub.emit([
    jobEvent('dead_letter.retried', job, STATE_ROLES.deadLetter, nowIso),
    jobEvent('job.enqueued', job, STATE_ROLES.deadLetter, nowIso, { priority: job.priority }),
  ]);
  return { job };
}

export async function deleteDeadLetter(ctx: EngineContext, id: string): Promise<DeadLetterDeleteResponse> {
  assertIdFormat(id, 'dead_letter_job');
  const deleted = await ctx.driver.jobDelete({ id, expect: { states: [STATE_ROLES.deadLetter], deadLetter: true } });
  if (!deleted)
    throw new OjsError('not_found', `Job '${id}' is not in the dead-letter queue.`, { details: { resource_type: 'dead_letter_job', resource_id: id } });
  await ctx.hub.emit([jobEvent('dead_letter.deleted', deleted, STATE_ROLES.deadLetter, instant(ctx).nowIso)]);
  return { deleted: true, job_id: id };
}

async function allDeadLettered(ctx: EngineContext, filter: { queue?: string; type?: string }): Promise<Job[]> {
  const all: Job[] = [];
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const { jobs } = await ctx.driver.jobList({ deadLetter: true, state: STATE_ROLES.deadLetter, limit: SCAN_PAGE, offset, ...filter });
    all.push(...jobs);
    if (jobs.length < SCAN_PAGE) return all;
  }
}

/** Bulk retry by filter; requires `confirm: true`. */
export async function retryDeadLetterBulk(ctx: EngineContext, body: unknown): Promise<BulkActionResponse> {
  const request = requireObject(body);
  if (request.confirm !== true) throw OjsError.invalidRequest('Bulk retry needs "confirm": true.', { field: 'confirm', expected: 'true' });
  const filter = request.filter === undefined ? {} : request.filter;
  if (!isPlainObject(filter)) invalidField('filter', 'an object', filter);
  const queue = filter.queue === undefined ? undefined : checkQueue(filter.queue, 'filter.queue');
  const type = filter.type === undefined ? undefined : checkJobType(filter.type, 'filter.type');
  let since: number | undefined;
  if (filter.since !== undefined) {
    since = typeof filter.since === 'string' ? parseTimestamp(filter.since) : undefined;
    if (since === undefined) invalidField('filter.since', 'an RFC 3339 timestamp', filter.since);
  }
  const errorType = filter.error_type;
  const candidates = (await allDeadLettered(ctx, { ...(queue ? { queue } : {}), ...(type ? { type } : {}) })).filter(
    (job) =>
      (since === undefined || Date.parse(job.discarded_at ?? job.created_at) >= since) &&
      (errorType === undefined || job.error?.type === errorType || job.error?.code === errorType),
  );
  const response: BulkActionResponse = { action: 'retry', matched: candidates.length, succeeded: 0, failed: 0 };
  const errors: Array<{ job_id: string; error: string }> = [];
  for (const job of candidates) {
    try {
      await retryDeadLetter(ctx, job.id);
      response.succeeded++;
    } catch (err) {
      response.failed++;
      errors.push({ job_id: job.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (errors.length > 0) response.errors = errors;
  return response;
}

export async function deadLetterStats(ctx: EngineContext): Promise<DeadLetterStatsResponse> {
  const jobs = await allDeadLettered(ctx, {});
  const byQueue: Record<string, number> = {};
  const byErrorType: Record<string, number> = {};
  let oldest: string | null = null;
  let newest: string | null = null;
  for (const job of jobs) {
    byQueue[job.queue] = (byQueue[job.queue] ?? 0) + 1;
    const errorType = job.error?.type ?? 'unknown';
    byErrorType[errorType] = (byErrorType[errorType] ?? 0) + 1;
    const at = job.discarded_at ?? job.created_at;
    if (oldest === null || at < oldest) oldest = at;
    if (newest === null || at > newest) newest = at;
  }
  return { total: jobs.length, by_queue: byQueue, by_error_type: byErrorType, oldest_at: oldest, newest_at: newest };
}
