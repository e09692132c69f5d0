/**
 * The one mapper between stored rows and core's types. Rows hold the envelope as `doc` and the internals as
 * `x` (both jsonb); jsonb keeps object keys in its own order, so envelopes are rebuilt in wire order here.
 */
import type { Job, JobInternals, JobState, JobSummary, StoredJob } from '@ojskit/core';

/** Envelope keys in the order the protocol documents them; other keys follow in stored order. */
const ENVELOPE_ORDER = [
  'specversion', 'id', 'type', 'queue', 'args', 'meta', 'priority', 'state', 'attempt', 'max_attempts',
  'created_at', 'enqueued_at', 'scheduled_at', 'expires_at', 'activated_at', 'started_at', 'completed_at',
  'cancelled_at', 'discarded_at', 'expired_at', 'next_attempt_at', 'retry_delay_ms', 'worker_id', 'result',
  'error', 'errors', 'retry', 'unique', 'tags', 'timeout_ms', 'timeout', 'visibility_timeout_ms',
  'parent_results', 'workflow_id', 'schema',
] as const;
const ORDERED: ReadonlySet<string> = new Set(ENVELOPE_ORDER);

/** A job envelope from a stored `doc`. */
export function jobFromDoc(doc: Record<string, unknown>): Job {
  const job: Record<string, unknown> = {};
  for (const key of ENVELOPE_ORDER) if (key in doc) job[key] = doc[key];
  for (const key in doc) if (!ORDERED.has(key)) job[key] = doc[key];
  return job as Job;
}

/** A stored job from a row's `doc` and `x`. */
export function storedFromRow(row: { doc: Record<string, unknown>; x: Record<string, unknown> }): StoredJob {
  return { job: jobFromDoc(row.doc), x: row.x as unknown as JobInternals };
}

/** Generated columns a statement returns to build a summary from. */
export interface SummaryColumns {
  id: string;
  type: string;
  queue: string;
  state: string;
  attempt: number;
  workflow_id?: string | null;
}

/** A summary from generated columns, without shipping the whole document. */
export function summaryFromColumns(row: SummaryColumns): JobSummary {
  return {
    id: row.id,
    type: row.type,
    queue: row.queue,
    state: row.state as JobState,
    attempt: row.attempt,
    ...(row.workflow_id ? { workflow_id: row.workflow_id } : {}),
  };
}

/** The JSON a row is inserted from. */
export function rowJson(stored: StoredJob): { id: string; doc: Job; x: JobInternals } {
  return { id: stored.job.id, doc: stored.job, x: stored.x };
}
