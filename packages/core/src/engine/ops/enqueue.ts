/** PUSH and PUSH batch: parse, store all-or-nothing, report duplicates, emit events. */
import type { InsertResult } from '../../driver/driver.js';
import type { StoredJob } from '../../driver/records.js';
import { OjsError } from '../../errors/ojs-error.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { parseEnqueue, type ParsedEnqueue } from '../../schemas/enqueue.js';
import { invalidField, requireObject } from '../../schemas/fields.js';
import type { BatchEnqueueResponse, EnqueueResponse } from '../../api/responses.js';
import type { EventInput } from '../../events/event.js';
import { instant, type EngineContext } from '../context.js';
import { createdEvent, jobEvent } from '../job-events.js';

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
  return { job: parsed.job, x };
}

/** Parses with the engine's defaults; prefixes batch errors with the element index. */
export function parseWithDefaults(ctx: EngineContext, body: unknown, now: number, index?: number): ParsedEnqueue {
  try {
    return parseEnqueue(body, now, {
      visibilityTimeoutMs: ctx.settings.visibilityTimeoutMs,
      executionTimeoutMs: ctx.settings.executionTimeoutMs,
    });
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

function insertError(result: Extract<InsertResult, { ok: false }>, batch: boolean, uniqueKey?: string): OjsError {
  const where = batch ? `jobs[${result.index}]: ` : '';
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

async function store(ctx: EngineContext, parsed: ParsedEnqueue[], batch: boolean, tx: unknown): Promise<InsertResult & { ok: true }> {
  const { now, nowIso } = instant(ctx);
  const jobs = parsed.map(toStored);
  const result = await ctx.driver.jobInsert({ jobs, now, nowIso, ...(tx !== undefined ? { tx } : {}) });
  if (!result.ok) throw insertError(result, batch, parsed[result.index]?.unique?.key);
  const time = toTimestamp(now);
  const events: EventInput[] = [];
  for (const outcome of result.outcomes) {
    if (outcome.status !== 'inserted') continue;
    if (outcome.replaced) events.push(jobEvent('job.cancelled', outcome.replaced, null, time, { reason: 'unique_replace', replaced_by: outcome.job.id }));
    events.push(createdEvent(outcome.job, time));
  }
  await ctx.hub.emit(events, tx);
  return result;
}

/** PUSH one job. */
export async function enqueue(ctx: EngineContext, body: unknown, tx?: unknown): Promise<EnqueueResponse> {
  const parsed = parseWithDefaults(ctx, body, ctx.clock.now());
  const result = await store(ctx, [parsed], false, tx);
  const outcome = result.outcomes[0]!;
  return outcome.status === 'existing' ? { job: outcome.job, deduplicated: true } : { job: outcome.job };
}

/** PUSH a batch, all-or-nothing: every element is validated before anything is stored. */
export async function enqueueBatch(ctx: EngineContext, body: unknown, tx?: unknown): Promise<BatchEnqueueResponse> {
  const request = requireObject(body);
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
  const result = await store(ctx, parsed, true, tx);
  const jobs = result.outcomes.map((o) => o.job);
  return { jobs, count: jobs.length };
}
