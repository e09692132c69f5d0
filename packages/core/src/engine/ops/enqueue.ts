/** PUSH and PUSH batch: parse, store all-or-nothing, report duplicates, emit events. */
import type { InsertOutcome, InsertParams, InsertResult } from '../../driver/driver.js';
import type { StoredJob } from '../../driver/records.js';
import { OjsError } from '../../errors/ojs-error.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { parseEnqueue, type ParsedEnqueue } from '../../schemas/enqueue.js';
import { invalidField, requireObject } from '../../schemas/fields.js';
import type { BatchEnqueueResponse, EnqueueResponse } from '../../api/responses.js';
import type { EventInput } from '../../events/event.js';
import type { EngineContext } from '../context.js';
import { createdEvent, jobEvent } from '../job-events.js';
import type { QueueConfigRecord } from '../../driver/admin.js';
import { makeEvent } from '../../events/event.js';
import { queueFullError, queuePressure } from '../backpressure.js';
import { depthBounds } from '../../driver/depth-bounds.js';
import { claimLimitOf } from '../../rate-limit/policy.js';

/** The stored form of a parsed request. */
export function toStored(parsed: ParsedEnqueue): StoredJob {
  const x: StoredJob['x'] = { visibilityMs: parsed.visibilityMs, timeoutMs: parsed.timeoutMs };
  if (parsed.dueAt !== undefined) x.dueAt = parsed.dueAt;
  if (parsed.expiresAt !== undefined) x.expiresAt = parsed.expiresAt;
  if (parsed.unique) {
    x.uniqueKey = parsed.unique.key;
    x.uniqueStates = parsed.unique.policy.states;
    x.uniqueOnConflict = parsed.unique.policy.onConflict;
    if (parsed.unique.until !== undefined) x.uniqueUntil = parsed.unique.until;
  }
  if (parsed.rateLimit) x.rateLimit = claimLimitOf(parsed.rateLimit, parsed.job.queue);
  return { job: parsed.job, x };
}

/** Parses with the engine's defaults; prefixes batch errors with the element index. */
export function parseWithDefaults(ctx: EngineContext, body: unknown, now: number, index?: number): ParsedEnqueue {
  try {
    // The settings carry the defaults under the names the parse reads.
    const parsed = parseEnqueue(body, now, ctx.settings);
    if (parsed.rateLimit && ctx.driver.capabilities.rateLimiting !== true) {
      throw OjsError.unsupported(`Rate limiting (options.rate_limit) is not supported by the ${ctx.driver.name} backend.`);
    }
    return parsed;
  } catch (err) {
    if (index === undefined || !(err instanceof OjsError)) throw err;
    throw new OjsError(err.code, `jobs[${index}]: ${err.message}`, {
      details: { ...err.details, index },
      status: err.status,
      retryable: err.retryable,
      ...(err.type ? { type: err.type } : {}),
    });
  }
}

function insertError(
  result: Extract<InsertResult, { ok: false }>,
  batch: boolean,
  uniqueKey?: string,
  configs?: ReadonlyMap<string, QueueConfigRecord>,
): OjsError {
  const where = batch ? `jobs[${result.index}]: ` : '';
  if (result.reason === 'queue_full') return queueFullError(result, configs?.get(result.queue), batch);
  const details: Record<string, unknown> = { existing_job_id: result.existing.id, ...(batch ? { index: result.index } : {}) };
  if (result.reason === 'duplicate_id') {
    return OjsError.duplicate(`${where}A job with id '${result.existing.id}' already exists.`, details);
  }
  return OjsError.duplicate(`${where}A job with the same unique key exists (job '${result.existing.id}', state '${result.existing.state}').`, {
    ...details,
    ...(uniqueKey ? { unique_key: uniqueKey } : {}),
    existing_state: result.existing.state,
  });
}

/** The driver's insert of `jobs` at `now`, in the caller's transaction when there is one, within the queues' bounds. */
export function insertParams(jobs: StoredJob[], now: number, tx: unknown, configs?: ReadonlyMap<string, QueueConfigRecord>): InsertParams {
  const params: InsertParams = { jobs, now, nowIso: toTimestamp(now) };
  if (tx !== undefined) params.tx = tx;
  const bounds = configs === undefined || configs.size === 0 ? undefined : depthBounds(jobs, configs);
  if (bounds !== undefined) params.bounds = bounds;
  return params;
}

/**
 * Emits the events of the jobs an insert stored. A promise only when the hub's transport publishes, so an
 * engine without one does not wait a turn for nothing.
 */
function announce(ctx: EngineContext, outcomes: readonly InsertOutcome[], now: number, tx: unknown): void | Promise<void> {
  const time = toTimestamp(now);
  const events: EventInput[] = [];
  for (const outcome of outcomes) {
    if (outcome.status !== 'inserted') continue;
    if (outcome.replaced) events.push(jobEvent('job.cancelled', outcome.replaced, null, time, { reason: 'unique_replace', replaced_by: outcome.job.id }));
    events.push(createdEvent(outcome.job, time));
  }
  return ctx.hub.emit(events, tx);
}

/**
 * Issues the driver's insert and, when the driver runs calls in order and no caller transaction holds the
 * jobs back, wakes the FETCHes waiting in this process for their queues at once: a claim they issue now
 * runs behind this insert (see WorkSignal).
 */
function insert(ctx: EngineContext, params: InsertParams): Promise<InsertResult> {
  const inserting = ctx.driver.jobInsert(params);
  if (ctx.work.watched && params.tx === undefined && ctx.driver.capabilities.orderedCalls === true) {
    // one signal per run of available jobs of one queue, with the run's length
    let last: string | undefined;
    let run = 0;
    for (const { job } of params.jobs) {
      if (job.state !== 'available') continue;
      if (job.queue !== last) {
        if (last !== undefined) ctx.work.sent(last, run);
        last = job.queue;
        run = 0;
      }
      run++;
    }
    if (last !== undefined) ctx.work.sent(last, run);
  }
  return inserting;
}

/**
 * The insert's parameters with the queues' bounds. Before the engine's first read of the configurations, a
 * driver whose calls run in order reads the bounds itself (`bounds: 'stored'`), so the insert is still
 * issued in the caller's turn; other drivers wait for that first read.
 */
export function boundedInsert(ctx: EngineContext, jobs: StoredJob[], now: number, tx: unknown): BoundedInsert | Promise<BoundedInsert> {
  const cached = ctx.queueConfigs.current();
  // synchronous whenever it can be: an ordered driver's insert must be issued in the caller's turn
  if (!(cached instanceof Promise)) return { params: insertParams(jobs, now, tx, cached), configs: cached };
  if (ctx.driver.capabilities.orderedCalls === true && tx === undefined) {
    return { params: { ...insertParams(jobs, now, tx), bounds: 'stored' }, configs: cached };
  }
  return cached.then((configs) => ({ params: insertParams(jobs, now, tx, configs), configs }));
}

/** An insert's parameters, and the configurations its outcome is reported with. */
export interface BoundedInsert {
  params: InsertParams;
  configs: ReadonlyMap<string, QueueConfigRecord> | Promise<ReadonlyMap<string, QueueConfigRecord>>;
}

/** The configurations for reporting (pressure, Retry-After) once the insert is done: none when they cannot be read. */
async function settledConfigs(
  configs: ReadonlyMap<string, QueueConfigRecord> | Promise<ReadonlyMap<string, QueueConfigRecord>>,
): Promise<ReadonlyMap<string, QueueConfigRecord>> {
  try {
    return await configs;
  } catch {
    return new Map();
  }
}

/** PUSH one job. */
export async function enqueue(ctx: EngineContext, body: unknown, tx?: unknown): Promise<EnqueueResponse> {
  // One instant for the job's timestamps and the insert: the parse reads the clock, the store need not again.
  const now = ctx.clock.now();
  const parsed = parseWithDefaults(ctx, body, now);
  const prepared = boundedInsert(ctx, [toStored(parsed)], now, tx);
  const { params, configs } = prepared instanceof Promise ? await prepared : prepared;
  const result = await insert(ctx, params);
  if (!result.ok) throw await rejected(ctx, result, false, parsed.unique?.key, await settledConfigs(configs), now);
  const published = announce(ctx, result.outcomes, now, tx);
  if (published !== undefined) await published;
  const outcome = result.outcomes[0]!;
  const response: EnqueueResponse = outcome.status === 'existing' ? { job: outcome.job, deduplicated: true } : { job: outcome.job };
  const pressure = result.depths === undefined ? undefined : queuePressure(result.depths, await settledConfigs(configs));
  if (pressure !== undefined) response.queue_pressure = pressure;
  return response;
}

/** The error of a refused insert; a backpressure refusal also emits `backpressure.rejected`. */
export async function rejected(
  ctx: EngineContext,
  result: Extract<InsertResult, { ok: false }>,
  batch: boolean,
  uniqueKey: string | undefined,
  configs: ReadonlyMap<string, QueueConfigRecord>,
  now: number,
): Promise<OjsError> {
  if (result.reason === 'queue_full') {
    await ctx.hub.emit([makeEvent('backpressure.rejected', result.queue, { queue: result.queue, depth: result.depth, bound: result.bound }, toTimestamp(now))]);
  }
  return insertError(result, batch, uniqueKey, configs);
}

/** PUSH a batch, all-or-nothing: every element is validated before anything is stored. */
export async function enqueueBatch(ctx: EngineContext, body: unknown, tx?: unknown): Promise<BatchEnqueueResponse> {
  // Each element's values are checked by its own parse, so an error names its index.
  const request = requireObject(body, 'body', true);
  if (!Array.isArray(request.jobs) || request.jobs.length === 0) invalidField('jobs', 'a non-empty array of enqueue requests', request.jobs);
  const list = request.jobs as unknown[];
  if (list.length > ctx.settings.maxBatchSize) {
    throw new OjsError('payload_too_large', `A batch holds at most ${ctx.settings.maxBatchSize} jobs; got ${list.length}.`, {
      details: { field: 'jobs', max_batch_size: ctx.settings.maxBatchSize },
    });
  }
  const now = ctx.clock.now();
  const parsed = list.map((item, index) => parseWithDefaults(ctx, item, now, index));
  const ids = new Set<string>();
  parsed.forEach((p, index) => {
    if (ids.has(p.job.id)) throw OjsError.duplicate(`jobs[${index}]: id '${p.job.id}' appears twice in the batch.`, { existing_job_id: p.job.id, index });
    ids.add(p.job.id);
  });
  const prepared = boundedInsert(ctx, parsed.map(toStored), now, tx);
  const { params, configs } = prepared instanceof Promise ? await prepared : prepared;
  const result = await insert(ctx, params);
  if (!result.ok) throw await rejected(ctx, result, true, parsed[result.index]?.unique?.key, await settledConfigs(configs), now);
  const published = announce(ctx, result.outcomes, now, tx);
  if (published !== undefined) await published;
  const jobs = result.outcomes.map((o) => o.job);
  const response: BatchEnqueueResponse = { jobs, count: jobs.length };
  const pressure = result.depths === undefined ? undefined : queuePressure(result.depths, await settledConfigs(configs));
  if (pressure !== undefined) response.queue_pressure = pressure;
  return response;
}
