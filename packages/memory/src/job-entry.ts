/** A stored job as the memory driver holds it: the record plus its places in the indexes. */
import type { Job } from '@ojskit/core';
import type { JobInternals } from '@ojskit/core/driver';
import type { BinaryHeap, HeapNode } from './binary-heap.js';
import type { QueueState } from './queue-state.js';
import type { ReadyItem, ReadyLevel } from './ready-queue.js';

/**
 * One job. `job` and `x` are private copies (see clone.ts). Fields are cleared by assigning `undefined`
 * (dropped when copied out), never by `delete`, which would push the objects into V8's slow dictionary mode.
 *
 * The entry is itself the element of the one index its state puts it in: its queue's ready queue
 * (`available`: priority, then FIFO sequence), its queue's due heap (`scheduled`/`retryable`,
 * `x.dueAt`), the active deadline heap, or a retention heap (terminal, `x.finishedAt`).
 */
export class JobEntry implements HeapNode, ReadyItem {
  a = 0;
  b = 0;
  index = -1;
  heap: BinaryHeap<HeapNode> | null = null;
  /** FIFO sequence, assigned each time the job enters `available`. */
  seq = 0;
  ready: ReadyLevel<ReadyItem> | null = null;
  /** Its place in the expiry heap (`scheduled`/`available`/`retryable` with `x.expiresAt`), made on first use. */
  expiry: ExpiryNode | null = null;
  /** The queue whose indexes and counters hold the job (kept by the store), so a change need not look it up. */
  q: QueueState | null = null;

  constructor(
    public job: Job,
    public x: JobInternals,
  ) {}

  get priority(): number {
    return this.job.priority;
  }
}

/** A job's node in the expiry heap, the one index a job can be in besides its state's. */
export class ExpiryNode implements HeapNode {
  a = 0;
  b = 0;
  index = -1;
  heap: BinaryHeap<HeapNode> | null = null;

  constructor(readonly entry: JobEntry) {}
}
