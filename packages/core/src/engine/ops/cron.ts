/** Cron: registration (both wire forms), listing, enable/disable, deletion, and firing due occurrences. */
import type { ListQuery } from '../../api/ojs-api.js';
import type { CronDeleteResponse, CronDescription, CronListResponse, CronRegisterResponse, CronResponse } from '../../api/responses.js';
import type { CronRecord } from '../../driver/driver.js';
import { OjsError } from '../../errors/ojs-error.js';
import { makeEvent } from '../../events/event.js';
import { newId } from '../../formats/ids.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { isTerminal } from '../../lifecycle/states.js';
import { invalidField, isPlainObject, requireObject } from '../../schemas/fields.js';
import { MAX_CRON_NAME_LENGTH, QUEUE_NAME_PATTERN } from '../../schemas/patterns.js';
import { CRON_OVERLAP_POLICIES } from '../../schemas/cron-overlap.js';
import { parseCron } from '../../cron/expression.js';
import { instant, type EngineContext } from '../context.js';
import { page } from '../pagination.js';
import { enqueue, parseWithDefaults } from './enqueue.js';
import { cancelJobById } from './jobs.js';

function describe(record: CronRecord): CronDescription {
  const t = record.job_template;
  return {
    name: record.name,
    expression: record.expression,
    cron: record.expression,
    timezone: record.timezone,
    overlap_policy: record.overlap_policy,
    enabled: record.enabled,
    status: record.enabled ? 'active' : 'disabled',
    job_template: t,
    type: t.type,
    args: t.args,
    options: t.options ?? {},
    ...(record.description !== undefined ? { description: record.description } : {}),
    created_at: record.created_at,
    next_run_at: record.enabled ? record.next_run_at : null,
    last_run_at: record.last_run_at,
    run_count: record.run_count,
  };
}

const wrap = (record: CronRecord): CronResponse => {
  const d = describe(record);
  return { cron: d, cron_job: d };
};

function checkCronName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_CRON_NAME_LENGTH || !QUEUE_NAME_PATTERN.test(name)) {
    invalidField(field, 'a cron name matching ^[a-z0-9][a-z0-9.-]*$ (at most 255 characters)', name);
  }
  return name;
}

function nextRun(record: Pick<CronRecord, 'expression' | 'timezone'>, after: number, anchor?: number): number | null {
  return parseCron(record.expression, record.timezone).nextAfter(after, anchor);
}

/** Registers or replaces a cron (upsert: `created` tells which). */
export async function registerCron(ctx: EngineContext, body: unknown): Promise<CronRegisterResponse> {
  const request = requireObject(body);
  const name = checkCronName(request.name);
  // The flat form's fields are checked even where the template form shadows them: a mistyped field is never silently unused.
  if (request.cron !== undefined && typeof request.cron !== 'string') invalidField('cron', 'a cron expression', request.cron);
  if (request.type !== undefined && typeof request.type !== 'string') invalidField('type', 'a job type', request.type);
  if (request.args !== undefined && !Array.isArray(request.args)) invalidField('args', 'a JSON array', request.args);
  const expression = request.expression ?? request.cron;
  if (typeof expression !== 'string' || expression.trim() === '') invalidField('expression', 'a cron expression', expression);
  const timezone = request.timezone ?? 'UTC';
  if (typeof timezone !== 'string') invalidField('timezone', 'an IANA timezone name', timezone);
  let overlap = request.overlap_policy ?? 'skip';
  if (!(CRON_OVERLAP_POLICIES as readonly unknown[]).includes(overlap)) invalidField('overlap_policy', CRON_OVERLAP_POLICIES.join(', '), overlap);
  if (overlap === 'cancel') overlap = 'cancel_previous';
  const enabled = request.enabled ?? true;
  if (typeof enabled !== 'boolean') invalidField('enabled', 'a boolean', enabled);
  if (request.description !== undefined && typeof request.description !== 'string') invalidField('description', 'a string', request.description);
  if (request.job_template !== undefined && !isPlainObject(request.job_template)) invalidField('job_template', 'an object', request.job_template);
  const template = (request.job_template ?? {}) as Record<string, unknown>;
  const type = template.type ?? request.type;
  const args = template.args ?? request.args ?? [];
  const meta = template.meta ?? request.meta;
  const options = template.options ?? request.options;
  const { now, nowIso } = instant(ctx);
  // The template must make a valid job: same rules as enqueue.
  parseWithDefaults(ctx, { type, args, ...(meta !== undefined ? { meta } : {}), ...(options !== undefined ? { options } : {}) }, now);
  let nextRunMs: number | null;
  try {
    nextRunMs = enabled ? nextRun({ expression, timezone }, now, now) : null;
  } catch (err) {
    throw OjsError.invalidRequest((err as Error).message, {
      field: /timezone/i.test((err as Error).message) ? 'timezone' : 'expression',
      received: /timezone/i.test((err as Error).message) ? timezone : expression,
    });
  }
  const existing = await ctx.driver.cronGet(name);
  const record: CronRecord = {
    name,
    expression,
    timezone,
    overlap_policy: overlap as CronRecord['overlap_policy'],
    enabled,
    ...(typeof request.description === 'string' ? { description: request.description } : {}),
    job_template: {
      type: type as string,
      args: args as unknown[],
      ...(meta !== undefined ? { meta: meta as Record<string, unknown> } : {}),
      ...(options !== undefined ? { options: options as Record<string, unknown> } : {}),
    },
    created_at: existing?.created_at ?? nowIso,
    next_run_at: nextRunMs === null ? null : toTimestamp(nextRunMs),
    last_run_at: existing?.last_run_at ?? null,
    run_count: existing?.run_count ?? 0,
    nextRunMs,
    ...(existing?.lastJobId ? { lastJobId: existing.lastJobId } : {}),
  };
  const { created } = await ctx.driver.cronUpsert(record);
  return { ...wrap(record), created };
}

async function load(ctx: EngineContext, name: string): Promise<CronRecord> {
  checkCronName(name);
  const record = await ctx.driver.cronGet(name);
  if (!record) throw OjsError.notFound('cron', name);
  return record;
}

export async function listCron(ctx: EngineContext, query?: ListQuery & { enabled?: boolean }): Promise<CronListResponse> {
  const all = (await ctx.driver.cronList())
    .filter((c) => query?.enabled === undefined || c.enabled === query.enabled)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map(describe);
  const { items, pagination } = page(all, query);
  return { crons: items, cron_jobs: items, count: items.length, pagination };
}

export async function getCron(ctx: EngineContext, name: string): Promise<CronResponse> {
  return wrap(await load(ctx, name));
}

/** Enables or disables a cron; a disabled cron keeps its registration and never fires. */
export async function updateCron(ctx: EngineContext, name: string, body: unknown): Promise<CronResponse> {
  const request = requireObject(body);
  if (typeof request.enabled !== 'boolean') invalidField('enabled', 'a boolean', request.enabled);
  const record = await load(ctx, name);
  const { now } = instant(ctx);
  const nextRunMs = request.enabled ? nextRun(record, now) : null;
  const updated: CronRecord = { ...record, enabled: request.enabled, nextRunMs, next_run_at: nextRunMs === null ? null : toTimestamp(nextRunMs) };
  await ctx.driver.cronUpsert(updated);
  return wrap(updated);
}

/** Deletes a cron; jobs it already enqueued are left alone. */
export async function deleteCron(ctx: EngineContext, name: string): Promise<CronDeleteResponse> {
  checkCronName(name);
  const deleted = await ctx.driver.cronDelete(name);
  if (!deleted) throw OjsError.notFound('cron', name);
  return { cron: describe(deleted), deleted: true, name };
}

/**
 * Fires every due occurrence once across all engines sharing the store: the occurrence is claimed by a
 * compare-and-set on `nextRunMs` before anything is enqueued. After downtime, one catch-up firing, then
 * `next_run_at` jumps past now.
 */
export async function fireDueCrons(ctx: EngineContext): Promise<number> {
  const { now, nowIso } = instant(ctx);
  let fired = 0;
  for (const cron of await ctx.driver.cronList()) {
    if (!cron.enabled || cron.nextRunMs === null || cron.nextRunMs > now) continue;
    const occurrence = cron.nextRunMs;
    const next = nextRun(cron, now, occurrence);
    const previous = cron.lastJobId ? await ctx.driver.jobGet(cron.lastJobId) : null;
    const previousRunning = previous !== null && !isTerminal(previous.job.state);
    const skip = cron.overlap_policy === 'skip' && previousRunning;
    const jobId = newId();
    const won = await ctx.driver.cronAdvance({
      name: cron.name,
      expectNextRunMs: occurrence,
      patch: {
        nextRunMs: next,
        next_run_at: next === null ? null : toTimestamp(next),
        ...(skip ? {} : { last_run_at: nowIso, run_count: cron.run_count + 1, lastJobId: jobId }),
      },
    });
    if (!won) continue;
    const t = cron.job_template;
    if (skip) {
      await ctx.hub.emit([
        makeEvent('cron.skipped', cron.name, { cron_name: cron.name, cron_expr: cron.expression, job_type: t.type, existing_job_id: previous!.job.id }, nowIso),
      ]);
      continue;
    }
    if (cron.overlap_policy === 'cancel_previous' && previousRunning) {
      await cancelJobById(ctx, previous!.job.id, 'cron_overlap').catch(() => undefined);
    }
    await enqueue(ctx, {
      id: jobId,
      type: t.type,
      args: t.args,
      meta: { ...(t.meta ?? {}), cron_name: cron.name, cron_triggered_at: toTimestamp(occurrence) },
      ...(t.options ? { options: t.options } : {}),
    });
    await ctx.hub.emit([makeEvent('cron.triggered', cron.name, { cron_name: cron.name, cron_expr: cron.expression, job_type: t.type, job_id: jobId }, nowIso)]);
    fired++;
  }
  return fired;
}
