/** Per-state job counters, kept current on every state change so counts never scan. */
import { JOB_STATES, type JobState } from '@ojskit/core/driver';

/** A counter at zero for each of the eight states. */
export function zeroCounts(): Record<JobState, number> {
  const counts = {} as Record<JobState, number>;
  for (const state of JOB_STATES) counts[state] = 0;
  return counts;
}

/**
 * Adds `delta` to the counter of `state`. Every state change moves two counters in two sets (its queue's and
 * the totals). A switch naming each state would write to named fields (V8 serves `counts[state]` from its
 * cache for computed keys, some 20 ns a move), but it would list the states by hand, which only core's
 * lifecycle module does; the cost is about 2 % of a lifecycle.
 */
export function addCount(counts: Record<JobState, number>, state: JobState, delta: number): void {
  counts[state] = (counts[state] ?? 0) + delta;
}
