/**
 * Bulk operations (bulk-operations extension, and the admin API's bulk actions): enqueue many with per-item
 * results, and cancel, retry or delete many jobs by id list or by filter.
 */
import type { AdminBulkResponse, BulkEnqueueItem, BulkEnqueueResponse, BulkJobItem, BulkJobResponse } from '../../api/admin-responses.js';
import type { JobListParams } from '../../driver/driver.js';
import type { StoredJob } from '../../driver/records.js';
import { isOjsError, OjsError } from '../../errors/ojs-error.js';
import { isUuidV7 } from '../../formats/ids.js';
import { STATE_ROLES, STATE_SETS } from '../../lifecycle/sets.js';
import type { JobState } from '../../lifecycle/states.js';
import { invalidField, isPlainObject, requireObject } from '../../schemas/fields.js';
import type { EngineContext } from '../context.js';
import { jobFilter, retryJob } from './admin.js';
import { insertParams, parseWithDefaults, rejected, toStored } from './enqueue.js';
import { cancelJobById } from './jobs.js';
import { createdEvent } from '../job-events.js';
import { toTimestamp } from '../../formats/timestamps.js';

export type BulkAction = 'cancel' | 'retry' | 'delete';

const SCAN_PAGE = 500;

function errorOf(err: unknown): OjsError {
  return isOjsError(err) ? err : OjsError.backend(err instanceof Error ? err.message : String(err), err);
}

function checkAtomicity(value: unknown, allowed: readonly string[]): 'atomic' | 'partial' {
  if (value === undefined) return 'partial';
  if (value === 'atomic' && !allowed.includes('atomic'))
    throw OjsError.unsupported('Bulk cancel, retry and delete run item by item: "atomicity" must be "partial".');
  if (value !== 'atomic' && value !== 'partial') invalidField('atomicity', '"partial" or "atomic"', value);
  return value;
}

function checkIdempotencyKey(request: Record<string, unknown>): void {
  // Refused rather than ignored: a client relying on it to avoid duplicates must not be misled.
  if (request.idempotency_key !== undefined)
    throw OjsError.unsupported('Bulk idempotency keys are not supported: give each job its own id (a retried id answers 409 duplicate).');
}

// ---- enqueue --------------------------------------------------------------------------------------

/**
 * Bulk enqueue. `atomic`: one all-or-nothing insert; a failure rejects the whole request with 422 (429
 * `QUEUE_FULL` when a queue's bound refused it, as the backpressure extension asks of batches) and
 * `details.items` naming the failing item. `partial` (default): every valid item is stored unless its own
 * insert is refused; jobs stored are as durable as any other. Every item failing → 422 `x_bulk_failed`.
 */
export async function enqueueBulk(ctx: EngineContext, body: unknown): Promise<BulkEnqueueResponse> {
  const request = requireObject(body, 'body', true);
  const atomicity = checkAtomicity(request.atomicity, ['atomic', 'partial']);
  checkIdempotencyKey(request);
  if (!Array.isArray(request.jobs) || request.jobs.length === 0) invalidField('jobs', 'a non-empty array of enqueue requests', request.jobs);
  const list = request.jobs as unknown[];
  if (list.length > ctx.settings.maxBatchSize) {
    throw new OjsError('payload_too_large', `A bulk request holds at most ${ctx.settings.maxBatchSize} jobs; got ${list.length}.`, {
      details: { field: 'jobs', max_batch_size: ctx.settings.maxBatchSize },
    });
  }
  const now = ctx.clock.now();
  const items: Array<BulkEnqueueItem | undefined> = new Array(list.length);
  const valid: Array<{ index: number; stored: StoredJob; uniqueKey: string | undefined }> = [];
  list.forEach((item, index) => {
    try {
      const parsed = parseWithDefaults(ctx, item, now, index);
      valid.push({ index, stored: toStored(parsed), uniqueKey: parsed.unique?.key });
    } catch (err) {
      if (atomicity === 'atomic') throw atomicFailure(errorOf(err), index);
      items[index] = { index, status: 'failed', error: errorOf(err).toBody() };
    }
  });
  const cachedConfigs = ctx.queueConfigs.current();
  const configs = cachedConfigs instanceof Promise ? await cachedConfigs : cachedConfigs;
  let pending = valid;
  while (pending.length > 0) {
    const result = await ctx.driver.jobInsert(
      insertParams(
        pending.map((p) => p.stored),
        now,
        undefined,
        configs,
      ),
    );
    if (result.ok) {
      result.outcomes.forEach((outcome, k) => {
        const { index } = pending[k]!;
        items[index] = { index, status: outcome.status === 'existing' ? 'duplicate' : 'created', job: outcome.job };
      });
      const time = toTimestamp(now);
      await ctx.hub.emit(result.outcomes.flatMap((o) => (o.status === 'inserted' ? [createdEvent(o.job, time)] : [])));
      break;
    }
    const failing = pending[result.index]!;
    const error = await rejected(ctx, { ...result, index: failing.index }, atomicity === 'atomic', failing.uniqueKey, configs, now);
    if (atomicity === 'atomic') throw atomicFailure(error, failing.index);
    const failed = new Set([failing.index]);
    // A full queue stays full for the rest of this request: its later items are refused without a round trip each.
    if (result.reason === 'queue_full') pending.forEach((p, k) => k > result.index && p.stored.job.queue === result.queue && failed.add(p.index));
    for (const index of failed) items[index] = { index, status: 'failed', error: error.toBody() };
    pending = pending.filter((p) => !failed.has(p.index));
  }
  const done = items as BulkEnqueueItem[];
  const failedCount = done.filter((i) => i.status === 'failed').length;
  const response: BulkEnqueueResponse = { atomicity, total: done.length, succeeded: done.length - failedCount, failed: failedCount, items: done };
  if (failedCount === done.length) {
    throw new OjsError('x_bulk_failed', `All ${done.length} items of the bulk enqueue failed; see details.items.`, {
      status: 422,
      retryable: false,
      details: { total: done.length, failed: failedCount, items: done },
    });
  }
  return response;
}

/** An atomic bulk request refused because of one item: nothing stored. */
function atomicFailure(error: OjsError, index: number): OjsError {
  const item = { index, status: 'failed', error: error.toBody() };
  return new OjsError(error.code, error.message, {
    // A full queue keeps its 429 and Retry-After (backpressure extension); other refusals are the bulk extension's 422.
    status: error.code === 'QUEUE_FULL' ? 429 : 422,
    retryable: error.retryable,
    details: { ...error.details, index, atomicity: 'atomic', items: [item] },
    ...(error.type ? { type: error.type } : {}),
  });
}

// ---- cancel, retry, delete ------------------------------------------------------------------------

/** The states a filter selects by default for each action (the extension's defaults). */
function defaultStates(action: BulkAction): readonly JobState[] {
  if (action === 'cancel') return STATE_SETS.cancellable.filter((s) => !STATE_SETS.held.includes(s));
  // retryable (run now) and discarded (revived): what `retryJob` accepts
  if (action === 'retry') return [...STATE_SETS.due.filter((s) => s !== STATE_ROLES.scheduled), STATE_ROLES.deadLetter];
  return STATE_SETS.terminal;
}

/** Ids of every job matching a filter (`state` may be one state or a list), up to `max`. */
async function matchIds(ctx: EngineContext, raw: Record<string, unknown>, action: BulkAction, max: number, prefix: string): Promise<string[]> {
  const states = raw.state === undefined ? defaultStates(action) : Array.isArray(raw.state) ? raw.state : [raw.state];
  if (states.length === 0) invalidField(`${prefix}state`, 'a state or a non-empty list of states', raw.state);
  // A set: a job that moves from one listed state to another while the states are read one after the other
  // (a dispatch log's `available → pending`) is listed twice, and would be acted on and counted twice.
  const ids = new Set<string>();
  for (const state of states) {
    const filter: Omit<JobListParams, 'limit' | 'offset'> = jobFilter({ ...raw, state }, ctx.clock.now(), prefix);
    for (let offset = 0; ids.size < max; offset += SCAN_PAGE) {
      const { jobs } = await ctx.driver.jobList({ ...filter, limit: SCAN_PAGE, offset });
      for (const job of jobs) if (ids.size < max) ids.add(job.id);
      if (jobs.length < SCAN_PAGE) break;
    }
  }
  return [...ids];
}

/** One job's action; a job in a state the action does not apply to is `skipped` (cancel) or `failed`. */
async function actOn(ctx: EngineContext, action: BulkAction, id: string, index: number): Promise<BulkJobItem> {
  if (!isUuidV7(id)) return { index, job_id: String(id), status: 'failed', error: OjsError.notFound('job', String(id).slice(0, 100)).toBody() };
  try {
    if (action === 'cancel') {
      await cancelJobById(ctx, id, 'bulk');
      return { index, job_id: id, status: 'cancelled' };
    }
    if (action === 'retry') {
      await retryJob(ctx, id);
      return { index, job_id: id, status: 'retried' };
    }
    const deleted = await ctx.driver.jobDelete({ id, expect: { states: STATE_SETS.terminal } });
    if (deleted) return { index, job_id: id, status: 'deleted' };
    const stored = await ctx.driver.jobGet(id);
    const error = stored
      ? OjsError.conflict(`Cannot delete job '${id}': it is '${stored.job.state}' (only finished jobs are deleted).`, {
          job_id: id,
          current_state: stored.job.state,
        })
      : OjsError.notFound('job', id);
    return { index, job_id: id, status: 'failed', error: error.toBody() };
  } catch (err) {
    const error = errorOf(err);
    if (action === 'cancel' && error.code === 'conflict') return { index, job_id: id, status: 'skipped', reason: error.message };
    return { index, job_id: id, status: 'failed', error: error.toBody() };
  }
}

/**
 * Bulk cancel, retry or delete (`POST /ojs/v1/jobs/bulk/<action>`): `{"job_ids":[…]}` or
 * `{"filter":{queue?,state?,type?,since?,until?},"confirm":true}` (a filter may match thousands of jobs, so
 * it needs the same confirmation as the admin routes; an explicit id list is its own). Item by item.
 */
export async function bulkJobs(ctx: EngineContext, action: BulkAction, body: unknown): Promise<BulkJobResponse> {
  const request = requireObject(body);
  checkAtomicity(request.atomicity, ['partial']);
  checkIdempotencyKey(request);
  // `confirm` matters only with a filter, but a value other than true is a client mistake either way.
  if (request.confirm !== undefined && request.confirm !== true) invalidField('confirm', 'true', request.confirm);
  const hasIds = request.job_ids !== undefined;
  const hasFilter = request.filter !== undefined;
  if (hasIds === hasFilter) throw OjsError.invalidRequest('Give either "job_ids" or "filter", not both.', { field: hasIds ? 'filter' : 'job_ids' });
  let ids: string[];
  if (hasIds) {
    if (!Array.isArray(request.job_ids) || request.job_ids.length === 0 || request.job_ids.some((id) => typeof id !== 'string')) {
      invalidField('job_ids', 'a non-empty array of job ids', request.job_ids);
    }
    if (request.job_ids.length > ctx.settings.maxBatchSize) {
      throw new OjsError('payload_too_large', `A bulk request names at most ${ctx.settings.maxBatchSize} jobs; got ${request.job_ids.length}.`, {
        details: { field: 'job_ids', max_batch_size: ctx.settings.maxBatchSize },
      });
    }
    ids = request.job_ids as string[];
  } else {
    if (!isPlainObject(request.filter)) invalidField('filter', 'an object', request.filter);
    if (request.confirm !== true) throw OjsError.invalidRequest(`Bulk ${action} by filter needs "confirm": true.`, { field: 'confirm', expected: 'true' });
    ids = await matchIds(ctx, request.filter, action, ctx.settings.maxBatchSize, 'filter.');
  }
  const items: BulkJobItem[] = [];
  for (let index = 0; index < ids.length; index++) items.push(await actOn(ctx, action, ids[index]!, index));
  const count = (status: BulkJobItem['status']) => items.filter((i) => i.status === status).length;
  const skipped = count('skipped');
  const failed = count('failed');
  return { action, atomicity: 'partial', total_matched: items.length, succeeded: items.length - skipped - failed, skipped, failed, items };
}

/** Admin bulk action by filter (`POST /ojs/v1/admin/jobs/bulk/<action>`): requires `confirm: true`. */
export async function adminBulk(ctx: EngineContext, action: BulkAction, body: unknown): Promise<AdminBulkResponse> {
  const request = requireObject(body);
  if (request.confirm !== true) throw OjsError.invalidRequest(`Bulk ${action} needs "confirm": true.`, { field: 'confirm', expected: 'true' });
  const filter = request.filter === undefined ? {} : request.filter;
  if (!isPlainObject(filter)) invalidField('filter', 'an object', filter);
  const ids = await matchIds(ctx, filter, action, Number.MAX_SAFE_INTEGER, 'filter.');
  const response: AdminBulkResponse = { action, matched: ids.length, succeeded: 0, failed: 0 };
  const errors: Array<{ job_id: string; error: string }> = [];
  for (let index = 0; index < ids.length; index++) {
    const item = await actOn(ctx, action, ids[index]!, index);
    if (item.status === 'failed' || item.status === 'skipped') {
      response.failed++;
      errors.push({ job_id: item.job_id, error: item.error?.message ?? item.reason ?? item.status });
    } else response.succeeded++;
  }
  if (errors.length > 0) response.errors = errors;
  return response;
}
