/**
 * Stuck jobs ("zombies"): `active` jobs past their visibility deadline or execution timeout, or held by a
 * worker that stopped heartbeating. Read only: the rescuer moves them (within a pass of `rescueMs`); a job
 * that stays listed means the rescuer is not running, or not keeping up.
 */
import { OjsError } from '../../errors/ojs-error.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { STATE_ROLES } from '../../lifecycle/sets.js';
import type { StoredJob } from '../../driver/records.js';
import { instant, type EngineContext } from '../context.js';
import type { OverdueJob, OverdueJobsResponse, OverdueReason } from '../../schemas/responses/admin.js';

export type { OverdueJob, OverdueJobsResponse, OverdueReason };

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;

function overdueJob(stored: StoredJob, reason: OverdueReason, deadline: number, now: number): OverdueJob {
  const { job } = stored;
  const entry: OverdueJob = {
    job_id: job.id,
    type: job.type,
    queue: job.queue,
    attempt: job.attempt,
    reason,
    deadline: toTimestamp(deadline),
    overdue_ms: now - deadline,
  };
  if (job.worker_id !== undefined) entry.worker_id = job.worker_id;
  if (job.started_at !== undefined) entry.started_at = job.started_at;
  return entry;
}

/** The earlier of a held job's two deadlines and the error its expiry records (the rescuer's order). */
function passedDeadline(stored: StoredJob): { reason: OverdueReason; at: number } {
  const { visibleUntil, timeoutAt } = stored.x;
  if (timeoutAt !== undefined && (visibleUntil === undefined || timeoutAt <= visibleUntil)) return { reason: 'timeout', at: timeoutAt };
  return { reason: 'visibility_timeout', at: visibleUntil ?? 0 };
}

/**
 * Lists stuck jobs: first those past a deadline (the driver's overdue index), then those whose deadline has not
 * passed but whose worker has been silent for longer than `workerDeathMs`.
 * @example
 * const { jobs } = await listOverdue(ctx, { limit: 10 }); // [{ job_id, queue, reason: 'visibility_timeout', overdue_ms, … }]
 */
export async function listOverdue(ctx: EngineContext, query?: { limit?: number }): Promise<OverdueJobsResponse> {
  const limit = query?.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw OjsError.invalidRequest('limit must be a positive integer.', { field: 'limit', received: limit });
  const max = Math.min(limit, MAX_LIMIT);
  const { now, nowIso } = instant(ctx);
  // One more than asked: whether the list was cut.
  const overdue = await ctx.driver.jobListOverdue({ now, limit: max + 1 });
  const jobs: OverdueJob[] = [];
  const listed = new Set<string>();
  for (const stored of overdue.slice(0, max)) {
    const { reason, at } = passedDeadline(stored);
    jobs.push(overdueJob(stored, reason, at, now));
    listed.add(stored.job.id);
  }
  let truncated = overdue.length > max;
  for (const worker of truncated ? [] : await ctx.driver.workerList()) {
    const silentSince = worker.lastHeartbeatMs + ctx.settings.workerDeathMs;
    if (worker.state === 'dead' || now <= silentSince) continue;
    for (const id of worker.active_job_ids) {
      if (listed.has(id)) continue;
      const stored = await ctx.driver.jobGet(id);
      if (!stored || stored.job.state !== STATE_ROLES.claimed || stored.job.worker_id !== worker.id) continue;
      if (jobs.length === max) {
        truncated = true;
        break;
      }
      jobs.push(overdueJob(stored, 'worker_death', silentSince, now));
      listed.add(id);
    }
  }
  return { jobs, count: jobs.length, truncated, checked_at: nowIso };
}
