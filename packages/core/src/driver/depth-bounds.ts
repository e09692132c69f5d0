/**
 * The backpressure check drivers run inside their insert's atomic step (memory in its synchronous step,
 * PostgreSQL under a per-queue lock; Redis does the same in Lua): each job entering a backlog state adds one
 * to its queue's depth, and the first that would take a bounded queue past its bound refuses the insert.
 */
import { STATE_SETS } from '../lifecycle/sets.js';
import type { JobState } from '../lifecycle/states.js';
import type { DepthBounds, QueueConfigRecord, QueueFullRejection } from './admin.js';
import type { StoredJob } from './records.js';

const BACKLOG: ReadonlySet<JobState> = new Set(STATE_SETS.backlog);

/**
 * Checks `jobs` against `bounds`, given each bounded queue's depth before the insert. Returns the refusal, or
 * the depth of each bounded queue once the insert is stored (a job a unique `ignore` then drops still counts:
 * the check errs on the side of the bound).
 * @example checkDepthBounds(jobs, { emails: 100 }, { emails: 99 }) // ok for one job, queue_full for two
 */
export function checkDepthBounds(
  jobs: readonly StoredJob[],
  bounds: DepthBounds,
  depthBefore: Readonly<Record<string, number>>,
): { ok: true; depths: Record<string, number> } | QueueFullRejection {
  const depths: Record<string, number> = {};
  for (const queue of Object.keys(bounds)) depths[queue] = depthBefore[queue] ?? 0;
  for (let index = 0; index < jobs.length; index++) {
    const { queue, state } = jobs[index]!.job;
    const bound = bounds[queue];
    if (bound === undefined || !BACKLOG.has(state)) continue;
    const depth = depths[queue]!;
    if (depth + 1 > bound) return { ok: false, index, reason: 'queue_full', queue, depth, bound };
    depths[queue] = depth + 1;
  }
  return { ok: true, depths };
}

/** The bounds of the queues these jobs go to, or undefined when none is bounded (the usual, unchanged insert). */
export function depthBounds(jobs: readonly StoredJob[], configs: ReadonlyMap<string, QueueConfigRecord>): Record<string, number> | undefined {
  let bounds: Record<string, number> | undefined;
  for (const { job } of jobs) {
    const bound = configs.get(job.queue)?.max_depth;
    if (bound === undefined || bounds?.[job.queue] !== undefined) continue;
    (bounds ??= {})[job.queue] = bound;
  }
  return bounds;
}
