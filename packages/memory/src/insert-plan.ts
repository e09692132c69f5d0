/**
 * The memory driver's side of core's insert planner (`planInsert`, which makes every decision): the port
 * over the job table and the unique index. The plan touches nothing but the job table, where `stage`
 * registers each new job (so a repeated id inside the batch is found by the same lookup) and from which
 * `plan` removes them again when the batch aborts or a copy throws. Only when the whole batch passes does the driver
 * index the jobs and cancel replaced ones, which is how an insert stays all-or-nothing without an undo
 * log. It all runs in one synchronous step, so no caller ever sees a job of an aborted batch.
 */
import { planInsert } from '@ojskit/core/driver';
import type { Job } from '@ojskit/core';
import type { InsertConflictMode, InsertPlan, InsertPlanPort, InsertResult, StoredJob } from '@ojskit/core/driver';
import { copyInternals, copyJob, copyStoredJob } from './clone.js';
import { flatten } from './flatten.js';
import { JobEntry } from './job-entry.js';
import type { UniqueIndex } from './unique-index.js';

/**
 * One per store, made once: a plan allocates no port. Stored and staged jobs are both table entries, so
 * the planner's holders are the entries themselves (no wrapper object per job it looks at).
 */
export class MemoryInsertPort implements InsertPlanPort<JobEntry, JobEntry> {
  /**
   * What the plan in progress has staged, so that a plan that aborts or throws (a copy meeting a value that
   * cannot be cloned, such as a function in `args`) takes all of it back out of the table: a thrown plan
   * returns no steps to find them by.
   */
  private readonly staged: JobEntry[] = [];

  constructor(
    private readonly jobs: Map<string, JobEntry>,
    private readonly unique: UniqueIndex,
  ) {}

  /** Core's planner over this port; a plan that aborts or throws leaves the job table as it found it. */
  plan(input: readonly StoredJob[], now: number, mode: InsertConflictMode): InsertPlan<JobEntry, JobEntry> {
    this.staged.length = 0;
    try {
      const plan = planInsert(input, now, this, mode);
      if (!plan.ok) this.unstage();
      return plan;
    } catch (err) {
      this.unstage();
      throw err;
    } finally {
      this.staged.length = 0;
    }
  }

  private unstage(): void {
    for (const entry of this.staged) this.jobs.delete(entry.job.id);
  }

  /** Stored or staged: the plan stages straight into the table (one map lookup per job, and no map of its own). */
  jobWithId(id: string): Job | undefined {
    // The id of a job the plan stores is kept for the job's life: flattened here, before its first lookup.
    return this.jobs.get(flatten(id))?.job;
  }

  storedHolders(key: string): Iterable<JobEntry> | undefined {
    return this.unique.get(key);
  }

  /**
   * The entry a stored job will be: private copies (clone.ts), not yet in the table. Before the unique check,
   * as the copy always was; a job that an `ignore` or a skip then drops costs one entry object more than it
   * used to (rare paths; the common one allocates exactly what it did).
   */
  copy(source: StoredJob): JobEntry {
    const job = copyJob(source.job);
    const x = copyInternals(source.x);
    if (typeof job.workflow_id === 'string') flatten(job.workflow_id);
    return new JobEntry(job, x);
  }

  stage(entry: JobEntry): void {
    this.jobs.set(entry.job.id, entry);
    this.staged.push(entry);
  }

  /** What `jobInsert` reports for an aborted plan (whose jobs `plan` already took back out of the table). */
  takeBack(plan: Extract<InsertPlan<JobEntry, JobEntry>, { ok: false }>): Extract<InsertResult, { ok: false }> {
    const { index, reason, existing } = plan.result;
    return { ok: false, index, reason, existing: copyStoredJob(existing) };
  }
}
