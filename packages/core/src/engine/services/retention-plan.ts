/**
 * The pruner's plan: which `jobPrune` calls enforce each terminal state's retention, engine-wide and per queue
 * (a queue configuration's `retention`), as data the pruner runs and a test reads.
 */
import type { QueueConfigRecord } from '../../driver/admin.js';
import type { PruneParams } from '../../driver/driver.js';
import { EFFECTS } from '../../lifecycle/effects.js';
import type { JobState } from '../../lifecycle/states.js';
import type { Retention } from '../options.js';

/** Each terminal state with its engine-wide retention and its key in a queue configuration's `retention`. */
export const RETAINED_STATES: ReadonlyArray<{
  state: JobState;
  engine: 'completedMs' | 'cancelledMs' | 'discardedMs';
  queue: 'completed_ms' | 'cancelled_ms' | 'discarded_ms';
}> = [
  { state: EFFECTS.ack.to, engine: 'completedMs', queue: 'completed_ms' },
  { state: EFFECTS.cancel.to, engine: 'cancelledMs', queue: 'cancelled_ms' },
  { state: EFFECTS.discard.to, engine: 'discardedMs', queue: 'discarded_ms' },
];

/**
 * The prune calls (without `limit`) for time `now`:
 * 1. everything finished before the longest retention in force (engine-wide or any queue's), unfiltered: a store
 *    may drop whole partitions for it;
 * 2. per terminal state whose engine-wide retention is shorter, that state, leaving out the queues that set their
 *    own retention for it;
 * 3. per queue setting its own retention for a state, that queue and state (when shorter than the longest);
 * 4. dead letters at their own retention, whatever their queue.
 */
export function retentionPlan(now: number, retention: Retention, configs: Iterable<QueueConfigRecord>): Array<Omit<PruneParams, 'limit'>> {
  const own = RETAINED_STATES.map(() => [] as Array<{ queue: string; ms: number }>);
  for (const config of configs) {
    RETAINED_STATES.forEach((r, i) => {
      const ms = config.retention?.[r.queue];
      if (ms !== undefined) own[i]!.push({ queue: config.name, ms });
    });
  }
  const longest = Math.max(...RETAINED_STATES.map((r, i) => Math.max(retention[r.engine], ...own[i]!.map((o) => o.ms))));
  const calls: Array<Omit<PruneParams, 'limit'>> = [{ before: now - longest }];
  RETAINED_STATES.forEach((r, i) => {
    const queues = own[i]!;
    if (retention[r.engine] < longest) {
      calls.push({ before: now - retention[r.engine], state: r.state, ...(queues.length > 0 ? { exceptQueues: queues.map((o) => o.queue) } : {}) });
    }
    for (const o of queues) if (o.ms < longest) calls.push({ before: now - o.ms, state: r.state, queue: o.queue });
  });
  calls.push({ before: now - retention.deadLetterMs, deadLetter: 'only' });
  return calls;
}
