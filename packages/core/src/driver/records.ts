/** What drivers store: a job envelope plus the internal fields their indexes are built from. */
import type { JobState } from '../lifecycle/states.js';
import type { Job } from '../schemas/job.js';
import type { ClaimLimit } from '../rate-limit/policy.js';

/** Progress reported by a running job (progress extension). */
export interface JobProgress {
  progress: number | null;
  message: string | null;
  data: unknown;
  updated_at: string;
}

/**
 * Internal per-job fields. They never appear on the wire; drivers index on them.
 * All times are epoch milliseconds computed by the engine (drivers never read a clock).
 */
export interface JobInternals {
  /** `scheduled`/`retryable`: when the job becomes `available`. */
  dueAt?: number;
  /** From `expires_at`: after this the job must not be claimed. */
  expiresAt?: number;
  /** `active`: the visibility deadline. */
  visibleUntil?: number;
  /** `active`: when the execution timeout fires. */
  timeoutAt?: number;
  /** Reservation length used when the job is claimed without an explicit one. */
  visibilityMs: number;
  /** Reservation length used for the current claim (heartbeats extend by it). */
  claimVisibilityMs?: number;
  /** Execution limit per attempt. */
  timeoutMs: number;
  /** Unique fingerprint, the states in which it blocks, and the end of its period. */
  uniqueKey?: string;
  uniqueStates?: JobState[];
  uniqueUntil?: number;
  /** What a later job with the same key does: see `Driver.jobInsert`. */
  uniqueOnConflict?: 'reject' | 'replace' | 'replace_except_schedule' | 'ignore';
  /** True while the job is in the dead-letter queue (`discarded` only). */
  deadLetter?: boolean;
  /**
   * `pending` on a driver with `capabilities.dispatchLog`: when the log delivered the job (`DISPATCH_EFFECTS`).
   * Absent on a job staged by `pending: true`.
   */
  dispatchedAt?: number;
  /** When the job reached a terminal state (for retention). */
  finishedAt?: number;
  progress?: JobProgress;
  /** Workflow membership: the member's index in its workflow. */
  workflowIndex?: number;
  /** Set when this job is a workflow callback (`on_complete`, …), not a member. */
  workflowRole?: string;
  /** From `options.rate_limit`: what the claim checks before taking the job (rate-limit/rule.ts). */
  rateLimit?: ClaimLimit;
}

/** A stored job: the envelope as served, plus its internals. */
export interface StoredJob {
  job: Job;
  x: JobInternals;
}

/** The part of a job events and workflows need, returned where the full job would be waste. */
export interface JobSummary {
  id: string;
  type: string;
  queue: string;
  state: JobState;
  attempt: number;
  workflow_id?: string;
  /** The state before the change, where a primitive reports moves (promotion, expiry). */
  from?: JobState;
}

/** Summary of a job. */
export function summarize(job: Job): JobSummary {
  // Assigned rather than spread in: an ACK of a batch summarizes every job, and the spread cost more than the rest.
  const summary: JobSummary = { id: job.id, type: job.type, queue: job.queue, state: job.state, attempt: job.attempt };
  if (job.workflow_id) summary.workflow_id = job.workflow_id;
  return summary;
}
