/**
 * The one mapper between stored rows and core's types. A row holds the envelope as `doc` (jsonb) without
 * the caller's own data, which lives verbatim in the json columns `args`, `meta` and `result`, and the
 * internals as `x`. jsonb keeps object keys in its own order, so envelopes are rebuilt in wire order here.
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

/** Envelope fields stored verbatim in their own json columns. */
export const VERBATIM_KEYS: ReadonlySet<string> = new Set(['args', 'meta', 'result']);

/**
 * The job columns a statement returns. `result` comes as JSON text (`result::text`) so that a job without
 * a result (SQL NULL) and a job whose result is JSON `null` stay apart.
 */
export interface JobRow {
  doc: Record<string, unknown>;
  args: unknown;
  meta: unknown;
  result: string | null;
}

/** A job envelope from its row. */
export function jobFromRow(row: JobRow): Job {
  const { doc } = row;
  const job: Record<string, unknown> = {};
  for (const key of ENVELOPE_ORDER) {
    if (key === 'args') job['args'] = row.args;
    else if (key === 'meta') job['meta'] = row.meta;
    else if (key === 'result') {
      if (row.result !== null) job['result'] = JSON.parse(row.result);
    } else if (key in doc) job[key] = doc[key];
  }
  for (const key in doc) if (!ORDERED.has(key)) job[key] = doc[key];
  return job as Job;
}

/** A stored job from its row and `x`. */
export function storedFromRow(row: JobRow & { x: Record<string, unknown> }): StoredJob {
  return { job: jobFromRow(row), x: row.x as unknown as JobInternals };
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

/** The JSON a row is inserted from: the envelope minus the verbatim fields, which travel as JSON text. */
export function rowJson(stored: StoredJob): { id: string; doc: Record<string, unknown>; x: JobInternals; args: string; meta: string; result: string | null } {
  const { args, meta, result, ...doc } = stored.job;
  return {
    id: stored.job.id,
    doc,
    x: stored.x,
    args: JSON.stringify(args),
    meta: JSON.stringify(meta),
    result: 'result' in stored.job && result !== undefined ? JSON.stringify(result) : null,
  };
}
