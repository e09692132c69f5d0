/**
 * The Postgres driver's side of core's insert planner (`planInsert` in `@ojskit/core`, which makes every
 * decision): a port over the stored jobs a batch may clash with (fetched under the unique-key locks), and
 * the plan turned into what this driver writes. Nothing is written while planning: the driver writes only a
 * plan that passed, so an aborted insert leaves nothing behind.
 */
import type { Job } from '@ojskit/core';
import {
  EFFECTS,
  effectChanges,
  planInsert as planDecisions,
  type InsertConflictMode,
  type InsertPlanPort,
  type InsertConflict,
  type JobInternals,
  type StoredJob,
} from '@ojskit/core/driver';

/** What happens to one job of the batch. */
export type InsertStep =
  /**
   * Store `row` (its final form: a later job of the batch may have replaced it, so it is stored cancelled)
   * after cancelling the stored job `replace`, when set. `job` is the job as reported for this step;
   * `replacedStaged` is a job of this batch this one replaced.
   */
  | { kind: 'insert'; job: Job; row: StoredJob; replace?: StoredJob; replacedStaged?: StoredJob }
  /** Store nothing; report `job` (stored, or earlier in this batch). */
  | { kind: 'existing'; job: Job }
  /** Store nothing, report nothing (workflow re-drives). */
  | { kind: 'skip' };

export type InsertPlan = { ok: true; steps: InsertStep[] } | InsertConflict;

/** Stored jobs the batch may clash with. */
export interface StoredConflicts {
  byId: ReadonlyMap<string, StoredJob>;
  /** Holders of each unique key, oldest first. */
  byKey: ReadonlyMap<string, readonly StoredJob[]>;
}

/** A job of this batch: `job` and `x` as planned and reported, `row` what will be stored. */
class StagedJob implements StoredJob {
  /** Starts as the job itself; a later job of the batch that replaces this one makes it the cancelled form. */
  readonly row: StoredJob;

  constructor(
    readonly job: Job,
    readonly x: JobInternals,
  ) {
    this.row = { job, x };
  }
}

/** The stored conflicts, and the jobs staged so far (an id repeated in the batch is a duplicate too). */
class PostgresInsertPort implements InsertPlanPort<StoredJob, StagedJob> {
  private readonly staged = new Map<string, StagedJob>();

  constructor(private readonly conflicts: StoredConflicts) {}

  jobWithId(id: string): Job | undefined {
    return this.conflicts.byId.get(id)?.job ?? this.staged.get(id)?.job;
  }

  storedHolders(key: string): Iterable<StoredJob> | undefined {
    return this.conflicts.byKey.get(key);
  }

  /** Input objects are not modified: staged jobs are copies. */
  copy(source: StoredJob): StagedJob {
    return new StagedJob({ ...source.job }, { ...source.x });
  }

  stage(staged: StagedJob): void {
    this.staged.set(staged.job.id, staged);
  }
}

/** Plans an insert of `input` at `now` (`nowIso` dates the cancellation of a replaced job of the batch). */
export function planInsert(input: readonly StoredJob[], now: number, nowIso: string, conflicts: StoredConflicts, mode: InsertConflictMode): InsertPlan {
  const plan = planDecisions(input, now, new PostgresInsertPort(conflicts), mode);
  // The planner clears `enqueued_at` by assigning `undefined` (the memory driver's objects keep their shape
  // so). This driver hands its staged jobs out as they are (as outcomes, or as the `existing` job of an
  // abort), and those have always come without the key.
  for (const step of plan.steps) if (step.kind === 'insert' && step.rescheduled) delete step.staged.job.enqueued_at;
  if (!plan.ok) return plan.result;
  const steps: InsertStep[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'skip') {
      steps.push({ kind: 'skip' });
      continue;
    }
    if (step.kind === 'existing') {
      steps.push({ kind: 'existing', job: step.match.job });
      continue;
    }
    const { staged, replace: match } = step;
    let replace: StoredJob | undefined;
    let replacedStaged: StoredJob | undefined;
    if (match instanceof StagedJob) {
      // A job earlier in this batch (its step came first): it is stored in its cancelled form.
      const { set, x } = effectChanges(EFFECTS.uniqueReplace, now, nowIso);
      match.row.job = { ...match.row.job, ...set, state: EFFECTS.uniqueReplace.to };
      match.row.x = { ...match.row.x, ...x } as StoredJob['x'];
      replacedStaged = match.row;
    } else {
      replace = match;
    }
    steps.push({
      kind: 'insert',
      job: staged.job,
      row: staged.row,
      ...(replace !== undefined ? { replace } : {}),
      ...(replacedStaged !== undefined ? { replacedStaged } : {}),
    });
  }
  return { ok: true, steps };
}
