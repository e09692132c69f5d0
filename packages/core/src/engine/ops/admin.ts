/** Admin API operations (admin-api extension): workers and their directives, stats, job listing, queue configuration. */
import type { AdminJobQuery, AdminPageQuery } from '../../api/admin-api.js';
import type {
  AdminJobListResponse,
  AdminStatsResponse,
  AdminWorker,
  AdminWorkerListResponse,
  QueueConfigResponse,
  WorkerDirectiveResponse,
  WorkerSummary,
} from '../../api/admin-responses.js';
import type { JobResponse, StateCounts } from '../../api/responses.js';
import { queueRecordsHistory, type QueueConfigRecord } from '../../driver/admin.js';
import type { JobListParams, WorkerRecord } from '../../driver/driver.js';
import { OjsError } from '../../errors/ojs-error.js';
import { EFFECTS, effectChanges } from '../../lifecycle/effects.js';
import { STATE_ROLES } from '../../lifecycle/sets.js';
import { JOB_STATES, type JobState } from '../../lifecycle/states.js';
import type { Job } from '../../schemas/job.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { checkJobType, checkQueue, checkTimestamp, invalidField, isPlainObject, requireObject } from '../../schemas/fields.js';
import { DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_WARNING_THRESHOLD } from '../backpressure.js';
import { instant, type EngineContext } from '../context.js';
import { assertIdFormat, transitionError } from '../conflicts.js';
import { jobEvent } from '../job-events.js';
import { listQueues } from './queues.js';
import { recordsHistory } from './history.js';
import { parseQueueRateLimit } from '../../schemas/rate-limit.js';
import { parseAgeBoost } from '../../priority/age-boost-input.js';

const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;
const WORKER_ID_MAX = 255;

/** Resolves admin paging (`page` 1-based, `per_page` ≤ 100). */
export function adminPage(query: AdminPageQuery | undefined): { page: number; perPage: number; offset: number } {
  const page = query?.page ?? 1;
  if (!Number.isInteger(page) || page < 1) invalidField('page', 'a positive integer', page);
  const perPage = query?.per_page ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(perPage) || perPage < 1) invalidField('per_page', 'a positive integer', perPage);
  const clamped = Math.min(perPage, MAX_PER_PAGE);
  return { page, perPage: clamped, offset: (page - 1) * clamped };
}

// ---- workers --------------------------------------------------------------------------------------

function workerView(record: WorkerRecord, now: number, deathMs: number): AdminWorker {
  const worker: AdminWorker = {
    id: record.id,
    state: record.state,
    directive: record.directive,
    active_jobs: record.active_job_ids.length,
    active_job_ids: record.active_job_ids,
    last_heartbeat_at: record.last_heartbeat_at,
    stale: now - record.lastHeartbeatMs > deathMs,
  };
  if (record.hostname !== undefined) worker.hostname = record.hostname;
  if (record.pid !== undefined) worker.pid = record.pid;
  if (record.queues !== undefined) worker.queues = record.queues;
  if (record.concurrency !== undefined) worker.concurrency = record.concurrency;
  if (record.labels !== undefined) worker.labels = record.labels;
  return worker;
}

function summarizeWorkers(workers: readonly AdminWorker[]): WorkerSummary {
  const summary: WorkerSummary = { total: workers.length, running: 0, quiet: 0, terminate: 0, stale: 0 };
  for (const w of workers) {
    if (w.stale) summary.stale++;
    else if (w.state === 'quiet' || w.state === 'terminate') summary[w.state]++;
    else summary.running++;
  }
  return summary;
}

async function allWorkers(ctx: EngineContext): Promise<AdminWorker[]> {
  const now = ctx.clock.now();
  const records = await ctx.driver.workerList();
  // Most recent heartbeat first, then id: a stable order for paging.
  records.sort((a, b) => b.lastHeartbeatMs - a.lastHeartbeatMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return records.map((r) => workerView(r, now, ctx.settings.workerDeathMs));
}

export async function listWorkers(ctx: EngineContext, query?: AdminPageQuery): Promise<AdminWorkerListResponse> {
  const { page, perPage, offset } = adminPage(query);
  const workers = await allWorkers(ctx);
  return { items: workers.slice(offset, offset + perPage), summary: summarizeWorkers(workers), pagination: { total: workers.length, page, per_page: perPage } };
}

/** A sticky directive, delivered on the worker's next heartbeat (a worker not seen yet gets it on its first). */
export async function setWorkerDirective(ctx: EngineContext, id: string, directive: 'quiet' | 'terminate'): Promise<WorkerDirectiveResponse> {
  if (typeof id !== 'string' || id.length === 0 || id.length > WORKER_ID_MAX) invalidField('id', `a worker id of 1 to ${WORKER_ID_MAX} characters`, id);
  if (directive !== 'quiet' && directive !== 'terminate') invalidField('directive', '"quiet" or "terminate"', directive);
  const { now, nowIso } = instant(ctx);
  const record = await ctx.driver.workerSetDirective({ id, directive, now, nowIso });
  ctx.workerDirectives.note(id, record.directive);
  return { worker_id: id, state: record.directive, directive: record.directive };
}

// ---- stats ----------------------------------------------------------------------------------------

export async function adminStats(ctx: EngineContext): Promise<AdminStatsResponse> {
  // the queue count of GET /queues (which always lists `default`)
  const [jobs, queues, workers] = await Promise.all([ctx.driver.jobCounts({}), listQueues(ctx, { limit: 1 }), allWorkers(ctx)]);
  const summary = summarizeWorkers(workers);
  const counts = Object.fromEntries(JOB_STATES.map((s) => [s, jobs[s] ?? 0])) as StateCounts;
  return {
    queues: queues.pagination.total,
    workers: summary.total - summary.stale,
    worker_summary: summary,
    jobs: counts,
    uptime_seconds: Math.floor((Date.now() - ctx.startedAt) / 1000),
  };
}

// ---- jobs -----------------------------------------------------------------------------------------

/** A job filter from a query or a bulk body's `filter` (queue, state, type, created since/until). */
export function jobFilter(raw: Record<string, unknown>, now: number, prefix = ''): Omit<JobListParams, 'limit' | 'offset'> {
  const filter: Omit<JobListParams, 'limit' | 'offset'> = {};
  if (raw.queue !== undefined) filter.queue = checkQueue(raw.queue, `${prefix}queue`);
  if (raw.type !== undefined) filter.type = checkJobType(raw.type, `${prefix}type`);
  if (raw.state !== undefined) {
    if (typeof raw.state !== 'string' || !(JOB_STATES as readonly string[]).includes(raw.state))
      invalidField(`${prefix}state`, `one of ${JOB_STATES.join(', ')}`, raw.state);
    filter.state = raw.state as JobState;
  }
  // created_at is stamped by the engine in one format (toTimestamp), so text order is time order.
  if (raw.since !== undefined) filter.createdFrom = toTimestamp(checkTimestamp(raw.since, `${prefix}since`, now).ms);
  if (raw.until !== undefined) filter.createdBefore = toTimestamp(checkTimestamp(raw.until, `${prefix}until`, now).ms + 1);
  return filter;
}

export async function listJobs(ctx: EngineContext, query?: AdminJobQuery & { sort?: unknown; order?: unknown }): Promise<AdminJobListResponse> {
  const { page, perPage, offset } = adminPage(query);
  // Listings are newest first by id (creation order): the one order every store keeps an index for.
  if (query?.sort !== undefined && query.sort !== 'created_at') invalidField('sort', '"created_at"', query.sort);
  if (query?.order !== undefined && query.order !== 'desc') invalidField('order', '"desc" (newest first)', query.order);
  const filter = jobFilter({ ...query }, ctx.clock.now());
  const { jobs, total } = await ctx.driver.jobList({ ...filter, limit: perPage, offset });
  return { items: jobs, pagination: { total, page, per_page: perPage } };
}

/**
 * Runs a job again: a `discarded` one (dead-lettered or not) goes back to `available` with its attempts
 * reset (lifecycle #19, as a dead-letter retry); a `retryable` one becomes `available` now instead of at its
 * `next_attempt_at`. Other states → `409 conflict`.
 */
export async function retryJob(ctx: EngineContext, id: string): Promise<JobResponse> {
  assertIdFormat(id);
  const { now, nowIso } = instant(ctx);
  const revive = effectChanges(EFFECTS.deadLetterRetry, now, nowIso);
  let result = await ctx.driver.jobTransition({
    id,
    from: EFFECTS.deadLetterRetry.from,
    to: EFFECTS.deadLetterRetry.to,
    set: { attempt: 0, ...revive.set },
    unset: revive.unset,
    x: revive.x,
  });
  let from: JobState = STATE_ROLES.deadLetter;
  if (!result.ok && result.state !== null && (EFFECTS.promote.from as readonly JobState[]).includes(result.state) && result.state !== STATE_ROLES.scheduled) {
    const promote = effectChanges(EFFECTS.promote, now, nowIso);
    from = result.state;
    result = await ctx.driver.jobTransition({
      id,
      from: [result.state],
      to: EFFECTS.promote.to,
      set: promote.set,
      unset: [...promote.unset, 'next_attempt_at'],
      x: { ...promote.x, dueAt: null },
    });
  }
  if (!result.ok) throw transitionError(result, id, 'retry');
  const job = (result as { job: Job }).job;
  await ctx.hub.emit([jobEvent('job.enqueued', job, from, nowIso, { priority: job.priority, retried: true })]);
  return { job };
}

// ---- queue configuration --------------------------------------------------------------------------

function configView(ctx: EngineContext, name: string, record: QueueConfigRecord | null): QueueConfigResponse {
  return {
    queue: name,
    backpressure: {
      max_depth: record?.max_depth ?? null,
      strategy: 'reject',
      warning_threshold: record?.warning_threshold ?? DEFAULT_WARNING_THRESHOLD,
      retry_after_seconds: record?.retry_after_seconds ?? DEFAULT_RETRY_AFTER_SECONDS,
    },
    concurrency: record?.concurrency ?? null,
    rate_limit: record?.rate_limit ? { max_per_second: record.rate_limit.max_per_second ?? null, concurrency: record.rate_limit.concurrency ?? null } : null,
    retention: record?.retention ?? {},
    age_boost: record?.age_boost ? { interval_ms: record.age_boost.interval_ms } : null,
    history: recordsHistory(ctx) && queueRecordsHistory(record),
    updated_at: record?.updated_at ?? null,
  };
}

export async function getQueueConfig(ctx: EngineContext, name: string): Promise<QueueConfigResponse> {
  checkQueue(name, 'name');
  return configView(ctx, name, await ctx.driver.queueConfigGet(name));
}

function optionalInt(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) invalidField(field, `an integer ≥ ${min}`, value);
  return value;
}

/**
 * Replaces a queue's configuration. Accepts the extension's `{"backpressure":{max_depth,…}}` and the flat
 * `{"max_depth":…}`; `max_depth` 0 or null means unbounded. Only the `reject` strategy is offered.
 */
export async function setQueueConfig(ctx: EngineContext, name: string, body: unknown): Promise<QueueConfigResponse> {
  checkQueue(name, 'name');
  const request = requireObject(body);
  const nested = request.backpressure;
  if (nested !== undefined && !isPlainObject(nested)) invalidField('backpressure', 'an object', nested);
  const bp: Record<string, unknown> = { ...(nested ?? {}) };
  for (const key of ['max_depth', 'warning_threshold', 'retry_after_seconds', 'strategy'] as const) {
    if (request[key] !== undefined && bp[key] === undefined) bp[key] = request[key];
  }
  if (bp.strategy !== undefined && bp.strategy !== 'reject') {
    throw new OjsError('unsupported', `Backpressure strategy '${String(bp.strategy)}' is not supported: only "reject".`, {
      details: { field: 'backpressure.strategy' },
    });
  }
  if (bp.max_size_bytes !== undefined && bp.max_size_bytes !== 0 && bp.max_size_bytes !== null) {
    throw new OjsError('unsupported', 'Size bounds (max_size_bytes) are not supported: bound the queue by max_depth.', {
      details: { field: 'backpressure.max_size_bytes' },
    });
  }
  const record: QueueConfigRecord = { name, updated_at: instant(ctx).nowIso };
  const maxDepth = optionalInt(bp.max_depth, 'backpressure.max_depth', 0);
  if (maxDepth !== undefined && maxDepth > 0) record.max_depth = maxDepth;
  if (bp.warning_threshold !== undefined) {
    const t = bp.warning_threshold;
    if (typeof t !== 'number' || !(t >= 0 && t <= 1)) invalidField('backpressure.warning_threshold', 'a number from 0 to 1', t);
    record.warning_threshold = t;
  }
  const retryAfter = optionalInt(bp.retry_after_seconds, 'backpressure.retry_after_seconds', 1);
  if (retryAfter !== undefined) record.retry_after_seconds = retryAfter;
  const concurrency = optionalInt(request.concurrency, 'concurrency', 1);
  if (concurrency !== undefined) record.concurrency = concurrency;
  if (request.rate_limit !== undefined && request.rate_limit !== null) {
    const limit = parseQueueRateLimit(request.rate_limit);
    if (limit.max_per_second !== undefined || limit.concurrency !== undefined) {
      if (ctx.driver.capabilities.rateLimiting !== true)
        throw OjsError.unsupported(`Rate limiting (rate_limit) is not supported by the ${ctx.driver.name} backend.`);
      record.rate_limit = limit;
    }
  }
  if (request.retention !== undefined && request.retention !== null) {
    if (!isPlainObject(request.retention)) invalidField('retention', 'an object of completed_ms, discarded_ms, cancelled_ms', request.retention);
    const retention: NonNullable<QueueConfigRecord['retention']> = {};
    for (const key of ['completed_ms', 'discarded_ms', 'cancelled_ms'] as const) {
      const ms = optionalInt(request.retention[key], `retention.${key}`, 0);
      if (ms !== undefined) retention[key] = ms;
    }
    const unknown = Object.keys(request.retention).filter((k) => !['completed_ms', 'discarded_ms', 'cancelled_ms'].includes(k));
    if (unknown.length > 0) invalidField(`retention.${unknown[0]}`, 'one of completed_ms, discarded_ms, cancelled_ms', request.retention[unknown[0]!]);
    record.retention = retention;
  }
  const ageBoost = parseAgeBoost(request.age_boost);
  if (ageBoost !== undefined) record.age_boost = ageBoost;
  // Only the opt-out is stored: a queue records history unless it says `false` (null or absent: the default).
  if (request.history !== undefined && request.history !== null && typeof request.history !== 'boolean') invalidField('history', 'a boolean', request.history);
  if (request.history === false) record.history = false;
  const stored = await ctx.driver.queueConfigSet(record);
  ctx.queueConfigs.stored(stored);
  return configView(ctx, name, stored);
}
