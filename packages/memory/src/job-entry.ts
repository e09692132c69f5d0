/** A stored job as the memory driver holds it: the record plus its positions in each index. */
import type { JobInternals, Job } from '@ojskit/core';
import type { HeapNode } from './binary-heap.js';

/**
 * One job. `job` and `x` are private copies (see clone.ts); the nodes are this job's current entries in
 * the indexes its state puts it in, `null` when it is in none of that kind.
 */
export interface JobEntry {
  job: Job;
  x: JobInternals;
  /** FIFO sequence, assigned each time the job enters `available`. */
  seq: number;
  /** Per-queue `available` heap, keyed by (-priority, FIFO sequence). */
  availableNode: HeapNode<JobEntry> | null;
  /** Per-queue due heap of `scheduled`/`retryable` jobs, keyed by `x.dueAt`. */
  dueNode: HeapNode<JobEntry> | null;
  /** Global deadline heap of `active` jobs, keyed by `min(x.visibleUntil, x.timeoutAt)`. */
  activeNode: HeapNode<JobEntry> | null;
  /** Global expiry heap of `scheduled`/`available`/`retryable` jobs with `x.expiresAt`. */
  expiryNode: HeapNode<JobEntry> | null;
  /** Global retention heap of terminal jobs with `x.finishedAt` (dead-lettered ones in their own heap). */
  finishedNode: HeapNode<JobEntry> | null;
}

/** A fresh entry in no index yet. */
export function newEntry(job: Job, x: JobInternals): JobEntry {
  return { job, x, seq: 0, availableNode: null, dueNode: null, activeNode: null, expiryNode: null, finishedNode: null };
}
