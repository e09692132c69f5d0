/**
 * Workflows (chain, group, batch). The workflow is a versioned document; every change is an optimistic
 * compare-and-set on its version that also inserts the jobs the change releases (next chain step, batch
 * callbacks), so concurrent ACKs can never enqueue a step or fire a callback twice.
 */
import type { WorkflowMemberView, WorkflowDescription, WorkflowResponse, WorkflowState } from '../../api/responses.js';
import type { WorkflowRecord } from '../../driver/driver.js';
import type { StoredJob } from '../../driver/records.js';
import { OjsError } from '../../errors/ojs-error.js';
import type { EventInput } from '../../events/event.js';
import { makeEvent } from '../../events/event.js';
import { newId } from '../../formats/ids.js';
import { STATE_ROLES } from '../../lifecycle/sets.js';
import { isTerminal, type JobState } from '../../lifecycle/states.js';
import type { Job } from '../../schemas/job.js';
import { invalidField, isPlainObject, requireObject } from '../../schemas/fields.js';
import { checkOptionKeys } from '../../schemas/known-keys.js';
import { instant, type EngineContext } from '../context.js';
import { assertIdFormat } from '../conflicts.js';
import { createdEvent } from '../job-events.js';
import { parseWithDefaults, toStored } from './enqueue.js';
import { cancelJobById } from './jobs.js';

type WorkflowType = 'chain' | 'group' | 'batch';
const WORKFLOW_TYPES: readonly WorkflowType[] = ['chain', 'group', 'batch'];
const CALLBACK_ROLES = ['on_complete', 'on_success', 'on_failure'] as const;
const MAX_SAVE_ATTEMPTS = 20;

interface Member {
  index: number;
  type: string;
  name?: string;
  job_id: string;
  enqueued: boolean;
  /** Recorded once the member's job is terminal. */
  outcome?: JobState;
  result?: unknown;
  request: Record<string, unknown>;
}

interface WorkflowDoc extends WorkflowRecord {
  type: WorkflowType;
  name: string | null;
  state: WorkflowState;
  created_at: string;
  completed_at?: string;
  cancelled_at?: string;
  callbacks?: Record<string, Record<string, unknown>>;
  members: Member[];
  callback_job_ids?: string[];
}

/** A member that ended without completing: any terminal state but `completed`. */
const failedOutcome = (state: JobState | undefined) => state !== undefined && isTerminal(state) && state !== STATE_ROLES.completed;

/** Validates one item and returns the enqueue request it becomes (workflow options under item options). */
function itemRequest(ctx: EngineContext, item: unknown, defaults: Record<string, unknown>, index: number, field: string, now: number): Record<string, unknown> {
  if (!isPlainObject(item)) invalidField(`${field}[${index}]`, 'an object with a job type', item);
  if ('steps' in item || 'jobs' in item) throw OjsError.unsupported(`${field}[${index}]: nested workflows are not supported.`);
  const options = { ...defaults, ...(isPlainObject(item.options) ? item.options : {}) };
  const request: Record<string, unknown> = { type: item.type, args: item.args ?? [], options, id: newId() };
  if (item.meta !== undefined) request.meta = item.meta;
  parseWithDefaults(ctx, request, now, index);
  return request;
}

function memberJob(ctx: EngineContext, wf: WorkflowDoc, request: Record<string, unknown>, now: number, parentResults?: unknown[]): StoredJob {
  const stored = toStored(parseWithDefaults(ctx, request, now));
  stored.job.workflow_id = wf.id;
  if (parentResults) stored.job.parent_results = parentResults;
  return stored;
}

/** Creates a workflow and enqueues what can start now (step 0 of a chain; every job of a group/batch). */
export async function createWorkflow(ctx: EngineContext, body: unknown): Promise<WorkflowResponse> {
  const request = requireObject(body);
  const type = request.type as WorkflowType;
  if (!WORKFLOW_TYPES.includes(type)) invalidField('type', 'chain, group or batch', request.type);
  if (request.name !== undefined && request.name !== null && typeof request.name !== 'string') invalidField('name', 'a string', request.name);
  if (request.options !== undefined && !isPlainObject(request.options)) invalidField('options', 'an object', request.options);
  // Either name works for any type; both at once would leave one silently unused.
  if (request.steps !== undefined && request.jobs !== undefined) throw OjsError.invalidRequest('Give "steps" or "jobs", not both.', { field: 'jobs' });
  const field = request.steps !== undefined ? 'steps' : 'jobs';
  const items = request[field];
  if (!Array.isArray(items) || items.length === 0) invalidField(type === 'chain' ? 'steps' : 'jobs', 'a non-empty array of job items', items);
  let callbacks: Record<string, Record<string, unknown>> | undefined;
  if (request.callbacks !== undefined) {
    if (!isPlainObject(request.callbacks)) invalidField('callbacks', 'an object', request.callbacks);
    callbacks = request.callbacks as Record<string, Record<string, unknown>>;
  }
  if (type === 'batch' && !CALLBACK_ROLES.some((r) => callbacks?.[r] !== undefined)) {
    invalidField('callbacks', 'at least one of on_complete, on_success, on_failure for a batch');
  }
  const { now, nowIso } = instant(ctx);
  const defaults = (request.options ?? {}) as Record<string, unknown>;
  checkOptionKeys(defaults);
  const requests = (items as unknown[]).map((item, i) => itemRequest(ctx, item, defaults, i, field, now));
  if (callbacks) for (const role of CALLBACK_ROLES) if (callbacks[role] !== undefined) itemRequest(ctx, callbacks[role], {}, 0, `callbacks.${role}`, now);
  const wf: WorkflowDoc = {
    id: newId(),
    version: 1,
    type,
    name: typeof request.name === 'string' ? request.name : null,
    state: 'running',
    created_at: nowIso,
    ...(callbacks ? { callbacks } : {}),
    members: requests.map((r, index) => ({
      index,
      type: r.type as string,
      ...(typeof (items as Record<string, unknown>[])[index]!.name === 'string' ? { name: (items as Record<string, string>[])[index]!.name } : {}),
      job_id: r.id as string,
      enqueued: type !== 'chain' || index === 0,
      request: r,
    })),
  };
  const insert = wf.members.filter((m) => m.enqueued).map((m) => memberJob(ctx, wf, m.request, now));
  if (!(await ctx.driver.workflowSave({ workflow: wf, expectVersion: null, insert, now, nowIso }))) {
    throw OjsError.backend(`Workflow '${wf.id}' could not be created.`);
  }
  await ctx.hub.emit([
    makeEvent('workflow.started', wf.id, { workflow_id: wf.id, workflow_name: wf.name, workflow_type: type, job_count: wf.members.length }, nowIso),
    ...insert.map((s) => createdEvent(s.job, nowIso)),
  ]);
  return respond(await describe(ctx, wf));
}

async function load(ctx: EngineContext, id: string): Promise<WorkflowDoc> {
  assertIdFormat(id, 'workflow');
  const wf = (await ctx.driver.workflowGet(id)) as WorkflowDoc | null;
  if (!wf) throw OjsError.notFound('workflow', id);
  return wf;
}

export async function getWorkflow(ctx: EngineContext, id: string): Promise<WorkflowResponse> {
  return respond(await describe(ctx, await load(ctx, id)));
}

/** Cancels every non-terminal member, enqueues nothing further, fires no callbacks. */
export async function cancelWorkflow(ctx: EngineContext, id: string): Promise<WorkflowResponse> {
  for (let attempt = 0; attempt < MAX_SAVE_ATTEMPTS; attempt++) {
    const wf = await load(ctx, id);
    if (wf.state !== 'running') {
      throw OjsError.conflict(`Workflow '${id}' is already '${wf.state}'.`, { workflow_id: id, current_state: wf.state });
    }
    const { now, nowIso } = instant(ctx);
    const next: WorkflowDoc = { ...wf, version: wf.version + 1, state: 'cancelled', cancelled_at: nowIso };
    if (!(await ctx.driver.workflowSave({ workflow: next, expectVersion: wf.version, now, nowIso }))) continue;
    for (const m of wf.members) {
      if (m.enqueued && m.outcome === undefined) await cancelJobById(ctx, m.job_id, 'workflow_cancelled').catch(() => undefined);
    }
    await ctx.hub.emit([makeEvent('workflow.cancelled', id, { workflow_id: id, workflow_name: wf.name }, nowIso)]);
    return respond(await describe(ctx, next));
  }
  throw OjsError.conflict(`Workflow '${id}' changed too often to cancel; retry.`, { workflow_id: id });
}

/** Records a member's terminal outcome and releases what it unblocks. Idempotent. */
export async function onMemberTerminal(ctx: EngineContext, job: Job): Promise<void> {
  if (!job.workflow_id || !isTerminal(job.state)) return;
  for (let attempt = 0; attempt < MAX_SAVE_ATTEMPTS; attempt++) {
    const wf = (await ctx.driver.workflowGet(job.workflow_id)) as WorkflowDoc | null;
    if (!wf || wf.state !== 'running') return;
    const index = wf.members.findIndex((m) => m.job_id === job.id);
    if (index < 0 || wf.members[index]!.outcome !== undefined) return;
    const { now, nowIso } = instant(ctx);
    const members = wf.members.map((m) => ({ ...m }));
    const member = members[index]!;
    member.outcome = job.state;
    if (job.state === 'completed') member.result = job.result ?? null;
    const insert: StoredJob[] = [];
    let state: WorkflowState = 'running';
    if (wf.type === 'chain') {
      if (failedOutcome(job.state)) state = 'failed';
      else if (index + 1 < members.length) {
        const next = members[index + 1]!;
        next.enqueued = true;
        insert.push(
          memberJob(
            ctx,
            wf,
            next.request,
            now,
            members.slice(0, index + 1).map((m) => m.result ?? null),
          ),
        );
      } else state = 'completed';
    } else if (members.every((m) => m.outcome !== undefined)) {
      const anyFailed = members.some((m) => failedOutcome(m.outcome));
      state = anyFailed ? 'failed' : 'completed';
      if (wf.type === 'batch' && wf.callbacks) {
        const results = members.map((m) => m.result ?? null);
        const roles = ['on_complete', anyFailed ? 'on_failure' : 'on_success'] as const;
        for (const role of roles) {
          const item = wf.callbacks[role];
          if (!item) continue;
          const request = itemRequest(ctx, item, {}, 0, `callbacks.${role}`, now);
          const stored = memberJob(ctx, wf, request, now, results);
          stored.x.workflowRole = role;
          insert.push(stored);
        }
      }
    }
    const next: WorkflowDoc = {
      ...wf,
      version: wf.version + 1,
      members,
      state,
      ...(state !== 'running' ? { completed_at: nowIso } : {}),
      ...(insert.some((s) => s.x.workflowRole) ? { callback_job_ids: insert.filter((s) => s.x.workflowRole).map((s) => s.job.id) } : {}),
    };
    if (!(await ctx.driver.workflowSave({ workflow: next, expectVersion: wf.version, insert, now, nowIso }))) continue;
    const counts = memberCounts(next);
    const events: EventInput[] = [];
    const base = { workflow_id: wf.id, workflow_name: wf.name, ...counts };
    if (job.state === 'completed') events.push(makeEvent('workflow.step_completed', wf.id, { ...base, job_id: job.id, step_index: index }, nowIso));
    events.push(...insert.map((s) => createdEvent(s.job, nowIso)));
    if (state === 'completed' || state === 'failed') events.push(makeEvent(`workflow.${state}`, wf.id, base, nowIso));
    await ctx.hub.emit(events);
    return;
  }
}

function memberCounts(wf: WorkflowDoc): { job_count: number; completed_count: number; failed_count: number } {
  return {
    job_count: wf.members.length,
    completed_count: wf.members.filter((m) => m.outcome === 'completed').length,
    failed_count: wf.members.filter((m) => failedOutcome(m.outcome)).length,
  };
}

async function describe(ctx: EngineContext, wf: WorkflowDoc): Promise<WorkflowDescription> {
  const views: WorkflowMemberView[] = [];
  for (const m of wf.members) {
    let state: WorkflowMemberView['state'];
    if (m.outcome) state = m.outcome;
    else if (m.enqueued) state = (await ctx.driver.jobGet(m.job_id))?.job.state ?? 'waiting';
    else state = wf.state === 'running' ? 'waiting' : 'cancelled';
    views.push({
      index: m.index,
      type: m.type,
      state,
      job_id: m.enqueued ? m.job_id : null,
      ...(m.result !== undefined ? { result: m.result } : {}),
      ...(m.name ? { name: m.name } : {}),
    });
  }
  const counts = memberCounts(wf);
  const finished = wf.completed_at ?? wf.cancelled_at;
  const description: WorkflowDescription = {
    id: wf.id,
    type: wf.type,
    name: wf.name,
    state: wf.state,
    created_at: wf.created_at,
    ...(wf.completed_at ? { completed_at: wf.completed_at } : {}),
    ...(wf.cancelled_at ? { cancelled_at: wf.cancelled_at } : {}),
    metadata: { created_at: wf.created_at, started_at: wf.created_at, ...(finished ? { completed_at: finished } : {}), ...counts },
  };
  if (wf.type === 'chain') {
    Object.assign(description, { steps_total: counts.job_count, steps_completed: counts.completed_count, steps_failed: counts.failed_count, steps: views });
  } else {
    Object.assign(description, { jobs_total: counts.job_count, jobs_completed: counts.completed_count, jobs_failed: counts.failed_count, jobs: views });
  }
  if (wf.callbacks) description.callbacks = wf.callbacks;
  return description;
}

function respond(workflow: WorkflowDescription): WorkflowResponse {
  return { workflow, id: workflow.id, type: workflow.type, name: workflow.name, state: workflow.state, metadata: workflow.metadata };
}
