/** Per-queue, per-state counts: seeded from the server's stats, then moved by every transition event. */
import { JOB_STATES, type JobState } from '@ojskit/core';
import type { TransitionEvent } from './transition-event.js';

export type Counts = Record<JobState, number>;

/** A zero for every state of core's list. */
export function zeroCounts(): Counts {
  return Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Counts;
}

export class StateCounts {
  private readonly byQueue = new Map<string, Counts>();
  /** Bumped on every change so a view can tell cheaply whether to re-render. */
  version = 0;

  /** Replaces one queue's counts with a snapshot (from `GET /queues/{name}/stats`). */
  seed(queue: string, snapshot: Partial<Record<JobState, number>>): void {
    const counts = zeroCounts();
    for (const state of JOB_STATES) counts[state] = Math.max(0, Number(snapshot[state] ?? 0));
    this.byQueue.set(queue, counts);
    this.version += 1;
  }

  /**
   * Moves one job from `from` to `to`. Counts are signed on purpose: a stream that delivers a job's moves
   * out of order (events from several processes) dips below zero for a moment and still ends exact, where
   * clamping at zero would drift for good. Views show `Math.max(0, n)`.
   */
  apply(event: TransitionEvent): void {
    const counts = this.queue(event.queue);
    if (event.from !== null) counts[event.from] -= 1;
    counts[event.to] += 1;
    this.version += 1;
  }

  queue(name: string): Counts {
    let counts = this.byQueue.get(name);
    if (!counts) this.byQueue.set(name, (counts = zeroCounts()));
    return counts;
  }

  queues(): string[] {
    return [...this.byQueue.keys()].sort();
  }

  /** Sum over `queues` (every queue when omitted). */
  total(queues?: readonly string[]): Counts {
    const sum = zeroCounts();
    for (const name of queues ?? this.byQueue.keys()) {
      const counts = this.byQueue.get(name);
      if (!counts) continue;
      for (const state of JOB_STATES) sum[state] += counts[state];
    }
    return sum;
  }

  clear(): void {
    this.byQueue.clear();
    this.version += 1;
  }
}
