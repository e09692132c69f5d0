/**
 * The job table and every index derived from it (driver.ts, "Index rules"). All index upkeep lives
 * here: a job is `detach`ed before any change to its state or indexed fields and `attach`ed after, so
 * the indexes and counters can never disagree with the jobs.
 */
import { STATE_INDEX, STATE_ROLES, STATE_SETS, type JobState, type QueueRecord, type StateIndex } from '@ojskit/core/driver';
import { BinaryHeap } from './binary-heap.js';
import { ExpiryNode, type JobEntry } from './job-entry.js';
import { QueueState } from './queue-state.js';
import { addCount, zeroCounts } from './state-counts.js';
import { UniqueIndex } from './unique-index.js';

/** Each state's index (core's STATE_INDEX) as a Map: read on every attach. */
const INDEX_OF: ReadonlyMap<JobState, StateIndex> = new Map(Object.entries(STATE_INDEX) as Array<[JobState, StateIndex]>);

/** States in which `x.expiresAt` is enforced. */
const EXPIRABLE: ReadonlySet<JobState> = new Set(STATE_SETS.expirable);

export class JobStore {
  readonly jobs = new Map<string, JobEntry>();
  readonly queues = new Map<string, QueueState>();
  /** `active` jobs by deadline, `min(x.visibleUntil, x.timeoutAt)`. */
  readonly active = new BinaryHeap<JobEntry>();
  /** `scheduled`/`available`/`retryable` jobs with `x.expiresAt`, by expiry. */
  readonly expiry = new BinaryHeap<ExpiryNode>();
  /** Terminal jobs outside the dead-letter queue, by `x.finishedAt`. */
  readonly finished = new BinaryHeap<JobEntry>();
  /** Dead-lettered `discarded` jobs, by `x.finishedAt` (pruned only on request). */
  readonly finishedDeadLetter = new BinaryHeap<JobEntry>();
  /** The dead-letter queue: `discarded` jobs with `x.deadLetter`. */
  readonly deadLetter = new Set<JobEntry>();
  readonly unique = new UniqueIndex();
  /** Jobs in each state across all queues. */
  readonly totals: Record<JobState, number> = zeroCounts();
  /** Last FIFO sequence handed out. */
  private seq = 0;
  /** Tie breaker for the time-ordered heaps, so equal times keep arrival order. */
  private tick = 0;

  /** The queue named `name`, created (unpaused, `created_at` = `nowIso`) when new. */
  queue(name: string, nowIso: string): QueueState {
    let q = this.queues.get(name);
    if (q === undefined) {
      const record: QueueRecord = { name, paused: false, created_at: nowIso };
      this.queues.set(name, (q = new QueueState(record)));
    }
    return q;
  }

  /** Indexes a new job already in the table (insert-plan.ts puts it there). */
  index(entry: JobEntry, nowIso: string): void {
    this.unique.add(entry);
    this.attach(entry, null, nowIso);
  }

  /** Deletes a job from the table and every index. */
  delete(entry: JobEntry): void {
    this.detach(entry);
    this.unique.remove(entry);
    this.jobs.delete(entry.job.id);
  }

  /** Takes a job out of its indexes and counters before a change. */
  detach(entry: JobEntry): void {
    const state = entry.job.state;
    const q = entry.q;
    if (q !== null) {
      addCount(q.counts, state, -1);
      if (entry.ready !== null) q.available.remove(entry);
    }
    addCount(this.totals, state, -1);
    if (entry.heap !== null) entry.heap.remove(entry);
    const expiry = entry.expiry;
    if (expiry !== null && expiry.heap !== null) this.expiry.remove(expiry);
    if (state === STATE_ROLES.deadLetter) this.deadLetter.delete(entry);
  }

  /**
   * Puts a job back into the indexes its (new) state calls for. `from` is its state before the change
   * (`null` for a new job): entering `available` from elsewhere takes a new FIFO sequence.
   * `nowIso` dates a queue this creates (a job moved to a queue not seen before).
   */
  attach(entry: JobEntry, from: JobState | null, nowIso: string): void {
    const { job, x } = entry;
    const state = job.state;
    let q = entry.q;
    if (q === null || q.record.name !== job.queue) entry.q = q = this.queue(job.queue, nowIso);
    addCount(q.counts, state, 1);
    addCount(this.totals, state, 1);
    switch (INDEX_OF.get(state)) {
      case 'ready':
        if (from !== state) entry.seq = ++this.seq;
        q.available.push(entry);
        break;
      case 'due':
        // A job without a due time never becomes due by itself (the engine always sets one).
        q.due.push(entry, timeKey(x.dueAt), ++this.tick);
        break;
      case 'deadline':
        this.active.push(entry, deadlineOf(entry), ++this.tick);
        break;
      case 'finished': {
        const deadLettered = state === STATE_ROLES.deadLetter && x.deadLetter === true;
        if (deadLettered) this.deadLetter.add(entry);
        // Without finishedAt a terminal job has no retention clock, so the pruner leaves it alone.
        if (x.finishedAt !== undefined) (deadLettered ? this.finishedDeadLetter : this.finished).push(entry, timeKey(x.finishedAt), ++this.tick);
        break;
      }
      case 'none':
        break;
    }
    if (x.expiresAt !== undefined && EXPIRABLE.has(state)) {
      this.expiry.push((entry.expiry ??= new ExpiryNode(entry)), timeKey(x.expiresAt), ++this.tick);
    }
  }

  /** Re-keys an active job whose deadline fields changed in place. */
  rekeyActive(entry: JobEntry): void {
    this.active.update(entry, deadlineOf(entry), entry.b);
  }

  clear(): void {
    this.jobs.clear();
    this.queues.clear();
    this.active.clear();
    this.expiry.clear();
    this.finished.clear();
    this.finishedDeadLetter.clear();
    this.deadLetter.clear();
    this.unique.clear();
    for (const state of Object.keys(this.totals) as JobState[]) this.totals[state] = 0;
  }
}

/** When an active job is overdue: the earlier of its visibility deadline and its execution timeout. */
export function deadlineOf(entry: JobEntry): number {
  return Math.min(timeKey(entry.x.visibleUntil), timeKey(entry.x.timeoutAt));
}

/** A time as a heap key: a missing (or NaN) time never comes due, and must not break the heap order. */
function timeKey(ms: number | undefined): number {
  return ms === undefined || ms !== ms ? Infinity : ms;
}
