/**
 * Events of the moves a dispatch log makes in the store outside the engine (`DISPATCH_EFFECTS.dispatch`: the log
 * delivered the jobs, `available → pending`). A dispatcher writes those transitions itself, so the engine never
 * sees them; it publishes these on the store's event transport instead, built as the engine builds its own.
 */
import { jobEventToOjs, type OjsEvent } from '../events/event.js';
import { newEventId } from '../formats/ids.js';
import type { JobState } from '../lifecycle/states.js';
import type { JobSummary } from '../driver/records.js';
import { jobEvent } from './job-events.js';

/** One move the dispatcher made: the job after it, and the state it left. */
export interface DispatchedMove {
  from: JobState;
  summary: JobSummary;
}

/**
 * One `job.pending` event per job the log delivered, stamped `time` (the dispatch instant).
 * @example dispatchEvents([{ from: 'available', summary }], '2026-11-27T14:00:00.000Z')[0].type // 'job.pending'
 */
export function dispatchEvents(moves: readonly DispatchedMove[], time: string): OjsEvent[] {
  return moves.map((m) => jobEventToOjs(jobEvent('job.pending', m.summary, m.from, time), newEventId()));
}
