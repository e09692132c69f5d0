/**
 * Rescuer: active jobs past their execution timeout fail (and may retry); jobs past their visibility deadline,
 * or held by a worker that stopped heartbeating, go back to available with the attempt consumed. Every move is
 * a compare-and-set on the attempt (and deadline), so a job that just completed or was extended is never touched.
 */
import type { StoredJob } from '../../driver/records.js';
import type { EngineContext } from '../context.js';
import { instant } from '../context.js';
import { buildJobError, decideFailure, decideReclaim, type FailureDecision } from '../failure.js';
import { failureEvents } from '../job-events.js';
import type { Job } from '../../schemas/job.js';
import type { BackgroundService } from './service.js';

const BATCH = 500;

async function apply(ctx: EngineContext, stored: StoredJob, decision: FailureDecision, nowIso: string): Promise<boolean> {
  const result = await ctx.driver.jobTransition(decision.op);
  if (!result.ok) return false;
  const job = (result as { job: Job }).job;
  // A reclaim clears `started_at`; the events still say when the lost attempt began.
  await ctx.hub.emit(failureEvents(job, nowIso, decision.deadLettered, stored.job.started_at));
  if (job.state === 'discarded' && job.workflow_id) await ctx.onTerminal(job);
  return true;
}

async function rescueOne(ctx: EngineContext, stored: StoredJob, now: number, nowIso: string): Promise<boolean> {
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
    return apply(ctx, stored, decideFailure(stored, error, now, ctx.random), nowIso);
  }
  const error = buildJobError({ code: 'visibility_timeout', type: 'visibility_timeout', message: 'The visibility deadline passed without an ACK or FAIL.' }, job.attempt, nowIso);
  return apply(ctx, stored, decideReclaim(stored, error, now), nowIso);
}

/** Reclaims the jobs of workers silent for longer than `workerDeathMs` after at least one heartbeat. */
async function reclaimDeadWorkers(ctx: EngineContext, now: number, nowIso: string): Promise<number> {
  let total = 0;
  for (const worker of await ctx.driver.workerList()) {
    if (worker.state === 'dead' || now - worker.lastHeartbeatMs <= ctx.settings.workerDeathMs) continue;
    for (const id of worker.active_job_ids) {
      const stored = await ctx.driver.jobGet(id);
      if (!stored || stored.job.state !== 'active' || stored.job.worker_id !== worker.id) continue;
      const error = buildJobError({ code: 'worker_death', type: 'worker_death', message: `Worker '${worker.id}' stopped heartbeating.` }, stored.job.attempt, nowIso);
      if (await apply(ctx, stored, decideReclaim(stored, error, now), nowIso)) total++;
    }
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
      let moved = 0;
      for (const stored of overdue) if (await rescueOne(ctx, stored, now, nowIso)) moved++;
      total += moved;
      if (overdue.length < BATCH || moved === 0) break;
    }
    const { now, nowIso } = instant(ctx);
    return total + (await reclaimDeadWorkers(ctx, now, nowIso));
  },
};
