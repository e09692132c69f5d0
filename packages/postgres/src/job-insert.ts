/** jobInsert and the insert half of workflowSave: one statement when no job has a unique key. */
import type { Job } from '@ojskit/core';
import {
  checkDepthBounds,
  EFFECTS,
  effectChanges,
  noteOf,
  type DepthBounds,
  type InsertConflictMode,
  type InsertOutcome,
  type InsertResult,
  type StoredJob,
} from '@ojskit/core/driver';
import type { Pool } from 'pg';
import { insertColumnsOf, storedFromRow, type JobRow } from './job-row.js';
import { isDuplicateJobId } from './pg-errors.js';
import { planInsert, type StoredConflicts } from './insert-plan.js';
import type { Queryable, Statements } from './statements.js';
import { atomically } from './transactions.js';
import { transitionJobs } from './job-transitions.js';

export interface InsertContext {
  pool: Pool;
  sql: Statements;
}

export interface InsertRequest {
  jobs: readonly StoredJob[];
  now: number;
  nowIso: string;
  /** A caller's client inside their open transaction. */
  tx?: Queryable;
  mode: InsertConflictMode;
  /** Backpressure bounds by queue (see `InsertParams.bounds`). */
  bounds?: DepthBounds;
}

/** A stored job changed between our read and our write: plan again. */
class Replan extends Error {}

/** An id of the batch is a finished job's (jobInsert.sql stored nothing): reported as a duplicate id. */
class FinishedIdClash extends Error {}

const MAX_ATTEMPTS = 5;

/**
 * Inserts a batch all-or-nothing. A batch without unique keys is one INSERT statement (its duplicate-id
 * check is the primary key). A batch with unique keys runs in a transaction holding an advisory lock per
 * key, reads the jobs it may clash with, plans in TypeScript, then cancels replaced jobs and inserts.
 */
export async function insertJobs(ctx: InsertContext, request: InsertRequest): Promise<InsertResult> {
  if (request.jobs.length === 0) return { ok: true, outcomes: [] };
  const hasKeys = request.jobs.some((j) => j.x.uniqueKey !== undefined);
  for (let attempt = 1; ; attempt++) {
    try {
      if (request.bounds !== undefined) return await atomically(ctx.pool, request.tx, (on) => insertBounded(ctx, request, request.bounds!, on));
      if (!hasKeys && request.mode === 'abort') return await insertPlain(ctx, request);
      return await atomically(ctx.pool, request.tx, (on) => insertPlanned(ctx, request, on));
    } catch (error) {
      if (!(error instanceof Replan) && !(error instanceof FinishedIdClash) && !isDuplicateJobId(error)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

async function insertPlain(ctx: InsertContext, request: InsertRequest): Promise<InsertResult> {
  const params = [request.nowIso, ...insertColumnsOf(request.jobs)];
  try {
    const stored =
      request.tx !== undefined
        ? await atomically(ctx.pool, request.tx, (on) => ctx.sql.run<{ clash: boolean }>(on, 'jobInsert', params, { oneOff: true }))
        : await ctx.sql.run<{ clash: boolean }>(ctx.pool, 'jobInsert', params);
    if (stored[0]?.clash === true) throw new FinishedIdClash();
  } catch (error) {
    if (!isDuplicateJobId(error) && !(error instanceof FinishedIdClash)) throw error;
    const conflicts = await findConflicts(ctx, request.tx ?? ctx.pool, request.jobs, request.tx !== undefined);
    const plan = planInsert(request.jobs, request.now, request.nowIso, conflicts, 'abort');
    if (!plan.ok) return plan;
    throw error; // the clashing job is gone already: insert again
  }
  return { ok: true, outcomes: request.jobs.map((s) => ({ status: 'inserted', job: s.job })) };
}

/**
 * Backpressure: under a transaction-scoped advisory lock per bounded queue (taken in name order), reads each
 * queue's backlog, refuses the insert when a job would take a queue past its bound, else inserts as planned.
 * Concurrent bounded inserts into a queue thus run one after the other and cannot overshoot its bound.
 */
async function insertBounded(ctx: InsertContext, request: InsertRequest, bounds: DepthBounds, on: Queryable): Promise<InsertResult> {
  const oneOff = request.tx !== undefined;
  const queues = Object.keys(bounds).sort();
  await ctx.sql.run(on, 'jobInsert.lockQueues', [ctx.sql.schema, queues], { oneOff });
  const rows = await ctx.sql.run<{ queue: string; depth: number }>(on, 'jobInsert.queueDepths', [queues], { oneOff });
  const checked = checkDepthBounds(request.jobs, bounds, Object.fromEntries(rows.map((r) => [r.queue, r.depth])));
  if (!checked.ok) return checked;
  const result = await insertPlanned(ctx, request, on);
  return result.ok ? { ...result, depths: checked.depths } : result;
}

async function insertPlanned(ctx: InsertContext, request: InsertRequest, on: Queryable): Promise<InsertResult> {
  const oneOff = request.tx !== undefined;
  const keys = uniqueKeys(request.jobs);
  if (keys.length > 0) await ctx.sql.run(on, 'jobInsert.lockUniqueKeys', [ctx.sql.schema, keys], { oneOff });
  const conflicts = await findConflicts(ctx, on, request.jobs, oneOff);
  const plan = planInsert(request.jobs, request.now, request.nowIso, conflicts, request.mode);
  if (!plan.ok) return plan;

  // Cancel the stored jobs being replaced, each guarded on the state we planned with.
  const replaced = new Map<string, Job>();
  const ops = plan.steps.flatMap((step) =>
    step.kind === 'insert' && step.replace !== undefined
      ? [
          {
            id: step.replace.job.id,
            from: [step.replace.job.state],
            to: EFFECTS.uniqueReplace.to,
            expect: { attempt: step.replace.job.attempt },
            ...effectChanges(EFFECTS.uniqueReplace, request.now, request.nowIso),
            note: noteOf(EFFECTS.uniqueReplace, request.nowIso),
          },
        ]
      : [],
  );
  if (ops.length > 0) {
    const results = await transitionJobs(ctx.sql, on, ops, oneOff);
    for (const result of results) {
      if (!result.ok || !('job' in result)) throw new Replan();
      replaced.set(result.job.id, result.job);
    }
  }

  const inserts = plan.steps.flatMap((step) => (step.kind === 'insert' ? [step.row] : []));
  if (inserts.length > 0) {
    const params = [request.nowIso, ...insertColumnsOf(inserts)];
    const stored = await ctx.sql.run<{ clash?: boolean }>(on, request.mode === 'skip' ? 'jobInsert.skipExisting' : 'jobInsert', params, { oneOff });
    // The plan read the finished jobs too: a finished job with one of these ids appeared since. Plan again.
    if (stored[0]?.clash === true) throw new Replan();
  }

  const outcomes: InsertOutcome[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'skip') continue;
    if (step.kind === 'existing') {
      outcomes.push({ status: 'existing', job: step.job });
      continue;
    }
    const replacedJob = step.replace !== undefined ? replaced.get(step.replace.job.id) : step.replacedStaged?.job;
    outcomes.push(replacedJob === undefined ? { status: 'inserted', job: step.job } : { status: 'inserted', job: step.job, replaced: replacedJob });
  }
  return { ok: true, outcomes };
}

async function findConflicts(ctx: InsertContext, on: Queryable, jobs: readonly StoredJob[], oneOff: boolean): Promise<StoredConflicts> {
  const ids = jobs.map((j) => j.job.id);
  const rows = await ctx.sql.run<JobRow & { by_id: boolean }>(on, 'jobInsert.findConflicts', [ids, uniqueKeys(jobs)], { oneOff });
  const byId = new Map<string, StoredJob>();
  const byKey = new Map<string, StoredJob[]>();
  for (const row of rows) {
    const stored = storedFromRow(row);
    if (row.by_id) byId.set(stored.job.id, stored);
    else {
      const key = stored.x.uniqueKey!;
      const list = byKey.get(key);
      if (list === undefined) byKey.set(key, [stored]);
      else list.push(stored);
    }
  }
  return { byId, byKey };
}

function uniqueKeys(jobs: readonly StoredJob[]): string[] {
  return [...new Set(jobs.flatMap((j) => (j.x.uniqueKey !== undefined ? [j.x.uniqueKey] : [])))];
}
