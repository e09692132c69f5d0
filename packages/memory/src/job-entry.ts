/** A stored job as the memory driver holds it: the record plus its places in the indexes. */
import type { Job, JobInternals } from '@ojskit/core';
import { heapNode, type HeapNode } from './binary-heap.js';

/**
 * One job. `job` and `x` are private copies (see clone.ts). Fields are cleared by assigning `undefined`
 * (dropped when copied out), never by `delete`, which would push the objects into V8's slow dictionary mode.
 */
export class JobEntry {
  /** FIFO sequence, assigned each time the job enters `available`. */
  seq = 0;
  /**
   * This job's place in the one index its state puts it in: the queue's `available` heap
   * (-priority, FIFO sequence), the queue's due heap (`scheduled`/`retryable`, `x.dueAt`), the active
   * deadline heap, or a retention heap (terminal, `x.finishedAt`). One node, reused across moves.
   */
  readonly node: HeapNode<JobEntry> = heapNode<JobEntry>(this);
  /** Its place in the expiry heap (`scheduled`/`available`/`retryable` with `x.expiresAt`), made on first use. */
  expiryNode: HeapNode<JobEntry> | null = null;

  constructor(
    public job: Job,
    public x: JobInternals,
  ) {}
}
