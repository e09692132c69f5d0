/** What the memory driver keeps per queue: its record, its ready queue and due heap, its counters. */
import type { JobState, QueueRecord } from '@ojskit/core/driver';
import { BinaryHeap } from './binary-heap.js';
import type { JobEntry } from './job-entry.js';
import { ReadyQueue } from './ready-queue.js';
import { zeroCounts } from './state-counts.js';

export class QueueState {
  /** `available` jobs by priority, then FIFO sequence: the head is the next job to claim. */
  readonly available = new ReadyQueue<JobEntry>();
  /** `scheduled` and `retryable` jobs by `x.dueAt`. */
  readonly due = new BinaryHeap<JobEntry>();
  /** Jobs of this queue in each state. */
  readonly counts: Record<JobState, number> = zeroCounts();

  constructor(public record: QueueRecord) {}
}
