/**
 * A job's history (core's history/job-history.ts) as SQL: two columns of the job row, written by the statement
 * that makes each transition, so a line exists exactly for each change that happened (a guard that fails
 * updates no row, and writes no line).
 *
 * - `history text[]`: the lines, oldest first, at most `MAX_HISTORY_ENTRIES`; past the bound the oldest go;
 * - `history_dropped integer`: how many went (NULL: none).
 *
 * Columns of the row rather than a table of their own: a line costs no row, index entry or join, it moves with
 * the row between `jobs` and `jobs_finished` (the moving statements insert every column), and it goes when
 * retention deletes the row or drops its whole partition, with nothing to clean up. A line is text,
 * `at|from|to|trigger|attempt|wlen|worker[|reason]` (from '' for an insert, wlen the worker id's length in
 * characters, '' when none), decoded by decodeHistoryLine.
 */
import { MAX_HISTORY_ENTRIES, type JobHistoryEntry, type JobState, type Trigger } from '@ojskit/core/driver';

/** SQL expressions for the parts of one line. */
export interface LineParts {
  at: string;
  from: string;
  to: string;
  trigger: string;
  attempt: string;
  /** NULL when the job has no worker. */
  worker: string;
  /** NULL when the note has none. */
  reason?: string;
}

/** The SQL text expression of one line. */
export function historyLineSql(p: LineParts): string {
  const reason = p.reason === undefined ? '' : ` || COALESCE('|' || ${p.reason}, '')`;
  return (
    `${p.at} || '|' || ${p.from} || '|' || ${p.to} || '|' || ${p.trigger} || '|' || (${p.attempt})::text || '|' || ` +
    `COALESCE(length(${p.worker})::text || '|' || ${p.worker}, '|')${reason}`
  );
}

/**
 * Whether the queue of row `row` opts out of history (its configuration's `history: false`, spec/history.md H9).
 * The queues that opt out are one uncorrelated subquery, which PostgreSQL runs once per statement (an InitPlan)
 * and not per row (a probe of the partial index `queues_history_off_idx`, migration 0007): the statement that
 * writes the line consults the setting, with no round trip of its own.
 * Holds `{{schema}}`, rendered with the statement.
 */
export function historyOffSql(row: string): string {
  return `${row}.queue = ANY (ARRAY(SELECT hq.name FROM {{schema}}.queues hq WHERE hq.config @> '{"history": false}'))`;
}

/**
 * The two columns after appending `line` to the history of row `row` (`j` in an UPDATE, `g` for a deleted row
 * moving tables): the newest MAX_HISTORY_ENTRIES - 1 lines and the new one; the lines let go counted. A row of
 * a queue that opts out keeps both as they are.
 */
export function historyPush(row: string, line: string): { history: string; history_dropped: string } {
  const n = `cardinality(${row}.history)`;
  const off = historyOffSql(row);
  const full = `${n} >= ${MAX_HISTORY_ENTRIES}`;
  return {
    history: `CASE WHEN ${off} THEN ${row}.history WHEN ${full} THEN ${row}.history[${n} - ${MAX_HISTORY_ENTRIES - 2}:] || (${line}) ELSE ${row}.history || (${line}) END`,
    history_dropped: `CASE WHEN ${off} THEN ${row}.history_dropped WHEN ${full} THEN COALESCE(${row}.history_dropped, 0) + ${n} - ${MAX_HISTORY_ENTRIES - 1} ELSE ${row}.history_dropped END`,
  };
}

/** Decodes a stored line (see the module doc). */
export function decodeHistoryLine(line: string): JobHistoryEntry {
  let start = 0;
  const next = (): string => {
    const end = line.indexOf('|', start);
    const field = line.slice(start, end);
    start = end + 1;
    return field;
  };
  const at = next();
  const from = next();
  const to = next() as JobState;
  const trigger = next() as Trigger;
  const attempt = Number(next());
  const wlen = next();
  const entry: JobHistoryEntry = { at, from: from === '' ? null : (from as JobState), to, trigger, attempt };
  let rest = line.slice(start);
  if (wlen !== '') {
    const n = Number(wlen);
    // length() counts characters, a JS string UTF-16 units: cut by code points
    const chars = Array.from(rest);
    entry.worker_id = chars.slice(0, n).join('');
    rest = chars.slice(n).join('');
  }
  // what follows the worker: nothing, or '|' and the reason
  if (rest.length > 0) entry.reason = rest.slice(1);
  return entry;
}
