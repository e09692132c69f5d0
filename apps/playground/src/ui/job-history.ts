/** A job's transition history: the API's event log merged with what the stream delivered, oldest first, once each. */
import type { OjsEvent } from '@ojskit/core';
import { sameMove, toTransition, type TransitionEvent } from '../live/transition-event.js';

export function mergeHistory(polled: readonly OjsEvent[], streamed: readonly TransitionEvent[]): TransitionEvent[] {
  const byId = new Map<string, TransitionEvent>();
  for (const event of polled) {
    const t = toTransition(event);
    if (t) byId.set(t.eventId, t);
  }
  for (const t of streamed) byId.set(t.eventId, t);
  const sorted = [...byId.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.eventId < b.eventId ? -1 : 1));
  // One row per move: companion events (job.failed + job.retrying, …) collapse into the first.
  return sorted.filter((t, i) => !sameMove(sorted[i - 1], t));
}
