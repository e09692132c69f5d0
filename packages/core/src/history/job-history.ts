/**
 * Per-job history, an audit trail (ojskit extension `x-job-history`): one line per transition of a job, written
 * by the driver in the same atomic step as the transition itself, so there is never a line for a change that did
 * not happen nor a change without its line. Kept with the job (deleted when retention prunes it), at most
 * `MAX_HISTORY_ENTRIES` per job.
 */
import type { JobState } from '../lifecycle/states.js';
import type { TransitionEffect } from '../lifecycle/effects.js';
import type { Trigger } from '../lifecycle/transitions.js';
import type { Job } from '../schemas/job.js';
import type { JobHistoryEntry } from '../schemas/responses/history.js';

/** The wire shapes of a history (`JobHistoryEntry`, `JobHistoryResponse`) are zod schemas in `schemas/responses/history.ts`. */
export type { JobHistoryEntry, JobHistoryResponse } from '../schemas/responses/history.js';

/** A job's history, oldest first; `dropped` counts the oldest lines let go past the bound. */
export interface JobHistory {
  entries: JobHistoryEntry[];
  dropped: number;
}

/** Lines kept per job: a job retried many times keeps its newest. */
export const MAX_HISTORY_ENTRIES = 64;

/** What the engine tells the driver about a transition it asks for (`TransitionOp.note`): when, what, why. */
export interface TransitionNote {
  readonly at: string;
  readonly trigger: Trigger;
  readonly reason?: string;
}

/**
 * The note of a transition by `effect` at `at`.
 * @example noteOf(EFFECTS.cancel, nowIso, 'api') // { at: nowIso, trigger: 'cancel', reason: 'api' }
 */
export function noteOf(effect: TransitionEffect, at: string, reason?: string): TransitionNote {
  return reason === undefined ? { at, trigger: effect.trigger } : { at, trigger: effect.trigger, reason };
}

/**
 * The history line of a transition: `job` as it is after it, `heldBy` the worker that held it before (a move
 * out of `active` clears `worker_id`).
 */
export function historyEntry(note: TransitionNote, from: JobState | null, job: Job, heldBy?: string): JobHistoryEntry {
  const entry: JobHistoryEntry = { at: note.at, from, to: job.state, trigger: note.trigger, attempt: job.attempt };
  const worker = job.worker_id ?? heldBy;
  if (worker !== undefined) entry.worker_id = worker;
  if (note.reason !== undefined) entry.reason = note.reason;
  return entry;
}
