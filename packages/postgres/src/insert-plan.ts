/**
 * The decision half of an insert: checks each job of a batch against the stored jobs it may clash with
 * (fetched under the unique-key locks) and against the jobs before it in the batch, without writing.
 * The driver writes only a plan that passed, so an aborted insert leaves nothing behind.
 * Same semantics as `Driver.jobInsert` documents (and the memory driver implements).
 */
import { allowedFrom, NON_TERMINAL_STATES, type Job, type JobInternals, type JobState, type StoredJob } from '@ojskit/core';

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

export type InsertPlan =
  | { ok: true; steps: InsertStep[] }
  | { ok: false; index: number; reason: 'duplicate_id' | 'unique'; existing: Job };

/** `abort`: a duplicate id or a `reject` conflict aborts the batch. `skip`: both skip the job instead. */
export type ConflictMode = 'abort' | 'skip';

/** States a `replace` may cancel: the transition table's `unique_replace` rows. */
export const REPLACEABLE: readonly JobState[] = allowedFrom('cancelled', 'unique_replace');

/** Stored jobs the batch may clash with. */
export interface StoredConflicts {
  byId: ReadonlyMap<string, StoredJob>;
  /** Holders of each unique key, oldest first. */
  byKey: ReadonlyMap<string, readonly StoredJob[]>;
}

interface Candidate {
  job: Job;
  x: JobInternals;
  /** Set when the candidate is stored (not from this batch). */
  stored?: StoredJob;
  /** For a job of this batch: what will be stored (mutable while planning). */
  row: StoredJob;
}

/** Plans an insert of `input` at `now`. Input objects are not modified (staged jobs are copies). */
export function planInsert(
  input: readonly StoredJob[],
  now: number,
  nowIso: string,
  conflicts: StoredConflicts,
  mode: ConflictMode,
): InsertPlan {
  const steps: InsertStep[] = [];
  const staged = new Map<string, Candidate>();
  const stagedByKey = new Map<string, Candidate[]>();
  /** Ids, stored or staged, that this batch moves to `cancelled`. */
  const cancelled = new Set<string>();

  for (let index = 0; index < input.length; index++) {
    const source = input[index]!;
    const id = source.job.id;
    const clash = conflicts.byId.get(id)?.job ?? staged.get(id)?.job;
    if (clash !== undefined) {
      if (mode === 'skip') {
        steps.push({ kind: 'skip' });
        continue;
      }
      return { ok: false, index, reason: 'duplicate_id', existing: clash };
    }
    const job: Job = { ...source.job };
    const x: JobInternals = { ...source.x };
    let replace: StoredJob | undefined;
    let replacedStaged: StoredJob | undefined;
    const key = x.uniqueKey;
    if (key !== undefined) {
      const match = findMatch(key, x, now, conflicts, stagedByKey, cancelled);
      if (match !== undefined) {
        const policy = x.uniqueOnConflict ?? 'reject';
        if (policy === 'reject') {
          if (mode === 'skip') {
            steps.push({ kind: 'skip' });
            continue;
          }
          return { ok: false, index, reason: 'unique', existing: match.job };
        }
        if (policy === 'ignore') {
          steps.push({ kind: 'existing', job: match.job });
          continue;
        }
        const matchState = cancelled.has(match.job.id) ? 'cancelled' : match.job.state;
        if (REPLACEABLE.includes(matchState)) {
          cancelled.add(match.job.id);
          if (match.stored !== undefined) replace = match.stored;
          else {
            // A job earlier in this batch: it is stored in its cancelled form.
            match.row.job = { ...match.row.job, state: 'cancelled', cancelled_at: nowIso };
            match.row.x = { ...match.row.x, finishedAt: now };
            replacedStaged = match.row;
          }
        }
        if (
          policy === 'replace_except_schedule' &&
          match.job.scheduled_at !== undefined &&
          (job.state === 'scheduled' || job.state === 'available')
        ) {
          job.scheduled_at = match.job.scheduled_at;
          job.state = 'scheduled';
          delete job.enqueued_at;
          x.dueAt = match.x.dueAt ?? Date.parse(match.job.scheduled_at);
        }
      }
    }
    const candidate: Candidate = { job, x, row: { job, x } };
    staged.set(id, candidate);
    if (key !== undefined) {
      const list = stagedByKey.get(key);
      if (list === undefined) stagedByKey.set(key, [candidate]);
      else list.push(candidate);
    }
    steps.push({
      kind: 'insert',
      job,
      row: candidate.row,
      ...(replace !== undefined ? { replace } : {}),
      ...(replacedStaged !== undefined ? { replacedStaged } : {}),
    });
  }
  return { ok: true, steps };
}

/** The first job holding `key` that blocks a job with internals `x` at `now`. */
function findMatch(
  key: string,
  x: JobInternals,
  now: number,
  conflicts: StoredConflicts,
  stagedByKey: ReadonlyMap<string, Candidate[]>,
  cancelled: ReadonlySet<string>,
): Candidate | undefined {
  const states = x.uniqueStates ?? NON_TERMINAL_STATES;
  const blocks = (c: Candidate): boolean => {
    const state = cancelled.has(c.job.id) ? 'cancelled' : c.job.state;
    return states.includes(state) && (c.x.uniqueUntil === undefined || c.x.uniqueUntil > now);
  };
  for (const stored of conflicts.byKey.get(key) ?? []) {
    const c: Candidate = { job: stored.job, x: stored.x, stored, row: stored };
    if (blocks(c)) return c;
  }
  for (const c of stagedByKey.get(key) ?? []) if (blocks(c)) return c;
  return undefined;
}
