/**
 * Rescuer: active jobs past their execution timeout fail (and may retry); jobs past their visibility deadline,
 * or held by a worker that stopped heartbeating, go back to available with the attempt consumed. Each batch is one
 * `jobFailMany`, every job its own compare-and-set on the attempt (and deadline, and worker), so a job that just
 * completed or was extended is never touched.
 */
import type { StoredJob } from '../../driver/records.js';
import type { EngineContext } from '../context.js';
import { instant } from '../context.js';
import { buildJobError, decideFailure, decideReclaim, type FailureDecision } from '../failure.js';
import { failureEvents } from '../job-events.js';
import type { EventInput } from '../../events/event.js';
import { STATE_ROLES, STATE_SETS } from '../../lifecycle/sets.js';
import type { Job } from '../../schemas/job.js';
import type { BackgroundService } from './service.js';

const BATCH = 500;

/** A rescue decision and the job as the rescuer read it. */
interface Rescue {
  stored: StoredJob;
  decision: FailureDecision;
}

/** Applies the decisions in one `jobFailMany`; returns how many moved (the others lost their guard to a later change). */
async function apply(ctx: EngineContext, rescues: readonly Rescue[], now: number, nowIso: string): Promise<number> {
  if (rescues.length === 0) return 0;
  const results = await ctx.driver.jobFailMany({ jobs: rescues.map((r) => r.decision.item), now, nowIso });
  let moved = 0;
  const events: EventInput[] = [];
  const terminal: Job[] = [];
  for (let i = 0; i < results.length; i++) {
    const result = results[i]!;
    if (!result.ok || !('job' in result)) continue;
    moved++;
    const { stored, decision } = rescues[i]!;
    // A reclaim clears `started_at`; the events still say when the lost attempt began.
    events.push(...failureEvents(result.job, nowIso, decision.deadLettered, stored.job.started_at));
    if (result.job.workflow_id && STATE_SETS.terminal.includes(result.job.state)) terminal.push(result.job);
  }
  await ctx.hub.emit(events);
  for (const job of terminal) await ctx.onTerminal(job);
  return moved;
}

function decideRescue(ctx: EngineContext, stored: StoredJob, now: number, nowIso: string): Rescue {
  const { job, x } = stored;
  if (x.timeoutAt !== undefined && x.timeoutAt <= now) {
    const started = job.started_at ? Date.parse(job.started_at) : now - x.timeoutMs;
    const error = buildJobError(
      {
        code: 'timeout',
        type: 'timeout',
        message: `Execution exceeded ${x.timeoutMs} ms.`,
        timeout_kind: 'execution',
        limit_seconds: x.timeoutMs / 1000,
        elapsed_seconds: Math.round((now - started) / 10) / 100,
      },
      job.attempt,
      nowIso,
    );
    return { stored, decision: decideFailure(stored, error, ctx.random) };
  }
  const error = buildJobError(
    { code: 'visibility_timeout', type: 'visibility_timeout', message: 'The visibility deadline passed without an ACK or FAIL.' },
    job.attempt,
    nowIso,
  );
  return { stored, decision: decideReclaim(stored, error) };
}

/** Reclaims the jobs of workers silent for longer than `workerDeathMs` after at least one heartbeat. */
async function reclaimDeadWorkers(ctx: EngineContext, now: number, nowIso: string): Promise<number> {
  let total = 0;
  for (const worker of await ctx.driver.workerList()) {
    if (worker.state === 'dead' || now - worker.lastHeartbeatMs <= ctx.settings.workerDeathMs) continue;
    const decisions: Rescue[] = [];
    for (const id of worker.active_job_ids) {
      const stored = await ctx.driver.jobGet(id);
      if (!stored || stored.job.state !== STATE_ROLES.claimed || stored.job.worker_id !== worker.id) continue;
      const error = buildJobError(
        { code: 'worker_death', type: 'worker_death', message: `Worker '${worker.id}' stopped heartbeating.` },
        stored.job.attempt,
        nowIso,
      );
      const decision = decideReclaim(stored, error);
      decision.item.workerId = worker.id;
      decisions.push({ stored, decision });
    }
    total += await apply(ctx, decisions, now, nowIso);
    const { directive: _directive, ...info } = worker;
    await ctx.driver.workerRecord({ ...info, state: 'dead', active_job_ids: [] });
  }
  return total;
}

export const rescuer: BackgroundService = {
  name: 'rescuer',
  intervalMs: (ctx) => ctx.settings.services.rescueMs,
  async run(ctx) {
    let total = 0;
    for (;;) {
      const { now, nowIso } = instant(ctx);
      const overdue = await ctx.driver.jobListOverdue({ now, limit: BATCH });
      const moved = await apply(
        ctx,
        overdue.map((stored) => decideRescue(ctx, stored, now, nowIso)),
        now,
        nowIso,
      );
      total += moved;
      if (overdue.length < BATCH || moved === 0) break;
    }
    const { now, nowIso } = instant(ctx);
    return total + (await reclaimDeadWorkers(ctx, now, nowIso));
  },
};
