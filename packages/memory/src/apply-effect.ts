/** Applies one of core's transition effects (`EFFECTS`) to a stored job in place: the moves the driver makes itself. */
import type { Job } from '@ojskit/core';
import type { JobInternals, TransitionEffect } from '@ojskit/core/driver';

/**
 * Writes `effect` at an instant: the new state, the stamps, the removals and a new attempt when it starts one.
 * Fields the effect assigns from the primitive's inputs (`assign`, `xAssign`) are the caller's to write. A
 * removed field is set to `undefined`, never deleted (job-entry.ts says why); one already absent is left alone.
 */
export function applyEffect(job: Job, x: JobInternals, effect: TransitionEffect, now: number, nowIso: string): void {
  job.state = effect.to;
  for (const field of effect.stamp) job[field] = nowIso;
  for (const field of effect.unset) if (job[field] !== undefined) job[field] = undefined;
  const internals = x as unknown as Record<string, unknown>;
  for (const field of effect.xStamp) internals[field] = now;
  for (const field of effect.xUnset) if (internals[field] !== undefined) internals[field] = undefined;
  if (effect.attempt === 'increment') job.attempt += 1;
}
