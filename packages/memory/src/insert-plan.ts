/**
 * The decision half of an insert: checks every job of a batch against the store and against the jobs
 * before it in the same batch. It touches nothing but the job table, where it registers each new job
 * (so a repeated id inside the batch is found by the same lookup) and from which it removes them again
 * when the batch aborts. Only when the whole batch passes does the driver index the jobs and cancel
 * replaced ones, which is how an insert stays all-or-nothing without an undo log. It all runs in one
 * synchronous step, so no caller ever sees a job of an aborted batch.
 */
import {
  allowedFrom,
  NON_TERMINAL_STATES,
  type Job,
  type JobInternals,
  type JobState,
  type StoredJob,
} from '@ojskit/core';
import { copyInternals, copyJob, copyStoredJob } from './clone.js';
import { flatten } from './flatten.js';
import { JobEntry } from './job-entry.js';
import type { UniqueIndex } from './unique-index.js';

/** What to do with one job of the batch. */
export type InsertStep =
  /**
   * Index `entry` (private copies, already in the job table), after cancelling the job `replaceId` when
   * set. `reported` is what the outcome shows: the caller's own input when the stored job equals it
   * (handing a caller back its own object exposes nothing stored and saves a copy), else `null` for a
   * copy of the stored job.
   */
  | { kind: 'insert'; entry: JobEntry; replaceId?: string; reported: Job | null }
  /** Store nothing; report the job `matchId` (stored, or inserted earlier in this batch). */
  | { kind: 'existing'; matchId: string }
  /** Store nothing, report nothing (workflow re-drives). */
  | { kind: 'skip' };

export type InsertPlan =
  | { ok: true; steps: InsertStep[] }
  | { ok: false; index: number; reason: 'duplicate_id' | 'unique'; existing: Job };

/**
 * `abort`: a duplicate id or a `reject` conflict aborts the batch (`jobInsert`).
 * `skip`: both skip the job instead (`workflowSave`, whose job inserts are idempotent re-drives).
 */
export type ConflictMode = 'abort' | 'skip';

/** States a `replace` may cancel (the transition table's `unique_replace` rows). */
const REPLACEABLE: ReadonlySet<JobState> = new Set(allowedFrom('cancelled', 'unique_replace'));

/** Used when a job carries a key but no states; the engine normally sets them. */
const DEFAULT_UNIQUE_STATES: readonly JobState[] = NON_TERMINAL_STATES;

interface Candidate {
  id: string;
  job: Job;
  x: JobInternals;
}

/**
 * Plans an insert of `input` at `now`.
 *
 * A `replace` whose match is already terminal (a key blocking in `completed`, say) cannot cancel it (the
 * table has no such row), so the new job is simply stored and no `replaced` job is reported.
 */
export function planInsert(
  input: readonly StoredJob[],
  now: number,
  jobs: Map<string, JobEntry>,
  unique: UniqueIndex,
  mode: ConflictMode,
): InsertPlan {
  const steps: InsertStep[] = [];
  // Made on the first unique key: most jobs carry none, and most inserts are of one job.
  let stagedByKey: Map<string, Candidate[]> | undefined;
  /** Ids, stored or staged, that this batch moves to `cancelled`. */
  let cancelled: Set<string> | undefined;

  for (let index = 0; index < input.length; index++) {
    const source = input[index]!;
    const id = flatten(source.job.id);
    const clash = jobs.get(id);
    if (clash !== undefined) {
      if (mode === 'skip') {
        steps.push({ kind: 'skip' });
        continue;
      }
      return abort(jobs, steps, { ok: false, index, reason: 'duplicate_id', existing: copyStoredJob(clash.job) });
    }
    const job = copyJob(source.job);
    const x = copyInternals(source.x);
    if (typeof job.workflow_id === 'string') flatten(job.workflow_id);
    let replaceId: string | undefined;
    let reported: Job | null = source.job;
    const key = x.uniqueKey;
    if (key !== undefined) {
      stagedByKey ??= new Map();
      cancelled ??= new Set();
      const match = findMatch(key, x, now, unique, stagedByKey, cancelled);
      if (match !== undefined) {
        const policy = x.uniqueOnConflict ?? 'reject';
        if (policy === 'reject') {
          if (mode === 'skip') {
            steps.push({ kind: 'skip' });
            continue;
          }
          return abort(jobs, steps, { ok: false, index, reason: 'unique', existing: copyStoredJob(match.job) });
        }
        if (policy === 'ignore') {
          steps.push({ kind: 'existing', matchId: match.id });
          continue;
        }
        const matchState = cancelled.has(match.id) ? 'cancelled' : match.job.state;
        if (REPLACEABLE.has(matchState)) {
          replaceId = match.id;
          cancelled.add(match.id);
        }
        if (
          policy === 'replace_except_schedule' &&
          match.job.scheduled_at !== undefined &&
          (job.state === 'scheduled' || job.state === 'available')
        ) {
          job.scheduled_at = match.job.scheduled_at;
          job.state = 'scheduled';
          job.enqueued_at = undefined;
          // A promoted match keeps its dueAt; the parse covers a match stored without one.
          x.dueAt = match.x.dueAt ?? Date.parse(match.job.scheduled_at);
          reported = null;
        }
      }
    }
    const entry = new JobEntry(job, x);
    jobs.set(id, entry);
    if (key !== undefined) {
      const candidate: Candidate = { id, job, x };
      stagedByKey ??= new Map();
      const list = stagedByKey.get(key);
      if (list === undefined) stagedByKey.set(key, [candidate]);
      else list.push(candidate);
    }
    steps.push(replaceId === undefined ? { kind: 'insert', entry, reported } : { kind: 'insert', entry, replaceId, reported });
  }
  return { ok: true, steps };
}

/** Takes the jobs of an aborted batch back out of the job table. */
function abort(jobs: Map<string, JobEntry>, steps: readonly InsertStep[], result: Extract<InsertPlan, { ok: false }>): InsertPlan {
  for (const step of steps) if (step.kind === 'insert') jobs.delete(step.entry.job.id);
  return result;
}

/** The first job holding `key` that blocks a job with internals `x` at `now`. */
function findMatch(
  key: string,
  x: JobInternals,
  now: number,
  unique: UniqueIndex,
  stagedByKey: ReadonlyMap<string, Candidate[]>,
  cancelled: ReadonlySet<string>,
): Candidate | undefined {
  const states = x.uniqueStates ?? DEFAULT_UNIQUE_STATES;
  const blocks = (c: Candidate): boolean => {
    const state = cancelled.has(c.id) ? 'cancelled' : c.job.state;
    return states.includes(state) && (c.x.uniqueUntil === undefined || c.x.uniqueUntil > now);
  };
  const stored = unique.get(key);
  if (stored !== undefined) {
    for (const entry of stored) {
      const c: Candidate = { id: entry.job.id, job: entry.job, x: entry.x };
      if (blocks(c)) return c;
    }
  }
  for (const c of stagedByKey.get(key) ?? []) if (blocks(c)) return c;
  return undefined;
}
