/** The memory claim's order for a queue with an age boost: core's `ageBoostRank` over each job's `enqueued_at`. */
import { ageBoostRank } from '@ojskit/core/driver';
import type { JobEntry } from './job-entry.js';

/**
 * The rank function of a queue aging by `intervalMs`, or undefined when it does not age (the claim then takes
 * priority then FIFO, as it always did). `enqueued_at` is stamped each time a job enters `available`.
 */
export function agedRank(intervalMs: number | undefined): ((entry: JobEntry) => number) | undefined {
  if (intervalMs === undefined) return undefined;
  return (entry) => ageBoostRank(Date.parse(entry.job.enqueued_at ?? entry.job.created_at), entry.job.priority, intervalMs);
}
