/** Per-state job counters, kept current on every state change so counts never scan. */
import { JOB_STATES, type JobState } from '@ojskit/core';

/** A counter at zero for each of the eight states. */
export function zeroCounts(): Record<JobState, number> {
  const counts = {} as Record<JobState, number>;
  for (const state of JOB_STATES) counts[state] = 0;
  return counts;
}
