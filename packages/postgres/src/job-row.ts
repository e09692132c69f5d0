/**
 * The one mapper between job rows and core's types (the row layout is in job-columns.ts). Envelopes are
 * rebuilt in wire order; a NULL column is an absent field; json columns arrive as text and are parsed here.
 */
import type { Job } from '@ojskit/core';
import type { JobInternals, JobState, JobSummary, StoredJob } from '@ojskit/core/driver';
import { ENVELOPE_BY_KEY, ENVELOPE_COLUMNS, INSERT_COLUMNS, INTERNAL_BY_KEY, INTERNAL_COLUMNS, type Column } from './job-columns.js';

/** Envelope keys in the order the protocol documents them; other keys follow in stored order. */
const ENVELOPE_ORDER = [
  'specversion',
  'id',
  'type',
  'queue',
  'args',
  'meta',
  'priority',
  'state',
  'attempt',
  'max_attempts',
  'created_at',
  'enqueued_at',
  'scheduled_at',
  'expires_at',
  'activated_at',
  'started_at',
  'completed_at',
  'cancelled_at',
  'discarded_at',
  'expired_at',
  'next_attempt_at',
  'retry_delay_ms',
  'worker_id',
  'result',
  'error',
  'errors',
  'retry',
  'unique',
  'tags',
  'timeout_ms',
  'timeout',
  'visibility_timeout_ms',
  'parent_results',
  'workflow_id',
  'schema',
] as const;
const ORDERED: ReadonlySet<string> = new Set(ENVELOPE_ORDER);

/** Keys the row holds apart from any patch: the job's identity and its state. */
const IDENTITY = new Set(['id', 'state']);

/** A job row as pg returns it (json columns as text). */
export type JobRow = Record<string, unknown> & { id: string; state: string; doc: Record<string, unknown> | null };

function read(column: Column, value: unknown): unknown {
  return column.type === 'json' ? JSON.parse(value as string) : value;
}

/**
 * How each envelope key in wire order is read: from the row (`id`, `state`, or its column, parsed when json)
 * or from `doc`. Worked out once: the claim maps every row it hands out through this.
 */
const READ_PLAN: ReadonlyArray<{ key: string; column: string | undefined; json: boolean }> = ENVELOPE_ORDER.map((key) => {
  if (key === 'id' || key === 'state') return { key, column: key, json: false };
  const column = ENVELOPE_BY_KEY.get(key);
  return { key, column: column?.column, json: column?.type === 'json' };
});

/** A job envelope from its row. */
export function jobFromRow(row: JobRow): Job {
  const doc = row.doc ?? {};
  const job: Record<string, unknown> = {};
  for (const field of READ_PLAN) {
    if (field.column !== undefined) {
      const value = row[field.column];
      if (value !== null && value !== undefined) job[field.key] = field.json ? JSON.parse(value as string) : value;
    } else if (field.key in doc) job[field.key] = doc[field.key];
  }
  for (const key in doc) if (!ORDERED.has(key)) job[key] = doc[key];
  return job as Job;
}

/**
 * Reads rows given as arrays of values (see Statements.runArrays), by column position: the envelope in wire
 * order as `jobFromRow` builds it, summaries, and single columns. Worked out once per result.
 */
/** The position of envelope fields that have no column: they are read from `doc`. */
const DOC = -2;

export class RowReader {
  private readonly index = new Map<string, number>();
  /** READ_PLAN with each column's position (-1: a column this result lacks; DOC: a field kept in `doc`). */
  private readonly plan: ReadonlyArray<{ key: string; at: number; json: boolean }>;
  private readonly docAt: number;
  private readonly summaryAt: { id: number; type: number; queue: number; state: number; attempt: number; workflowId: number };

  constructor(columns: readonly string[]) {
    columns.forEach((column, at) => this.index.set(column, at));
    this.plan = READ_PLAN.map((field) => ({ key: field.key, at: field.column === undefined ? DOC : this.at(field.column), json: field.json }));
    this.docAt = this.at('doc');
    this.summaryAt = {
      id: this.at('id'),
      type: this.at('type'),
      queue: this.at('queue'),
      state: this.at('state'),
      attempt: this.at('attempt'),
      workflowId: this.at('workflow_id'),
    };
  }

  /** The position of `column`, -1 when the result lacks it. */
  at(column: string): number {
    return this.index.get(column) ?? -1;
  }

  /** A job envelope from its row (as jobFromRow). */
  job(values: readonly unknown[]): Job {
    const doc = (this.docAt >= 0 ? (values[this.docAt] as Record<string, unknown> | null) : null) ?? {};
    // Doc keys not placed yet: once none is left, the envelope fields kept in `doc` need no lookup (a claimed
    // job's doc mostly holds `specversion` alone, the first of them).
    let unplaced = 0;
    for (const _ in doc) unplaced++;
    const job: Record<string, unknown> = {};
    for (const field of this.plan) {
      if (field.at === DOC) {
        if (unplaced > 0 && field.key in doc) {
          job[field.key] = doc[field.key];
          unplaced--;
        }
      } else if (field.at >= 0) {
        const value = values[field.at];
        if (value !== null && value !== undefined) job[field.key] = field.json ? JSON.parse(value as string) : value;
      }
    }
    if (unplaced > 0) for (const key in doc) if (!ORDERED.has(key)) job[key] = doc[key];
    return job as Job;
  }

  /** A summary from the row's light columns (as summaryFromRow); `id` and `state` when the row lacks them. */
  summary(values: readonly unknown[], id?: string, state?: JobState): JobSummary {
    const at = this.summaryAt;
    const workflowId = values[at.workflowId];
    return {
      id: id ?? (values[at.id] as string),
      type: values[at.type] as string,
      queue: values[at.queue] as string,
      state: state ?? (values[at.state] as JobState),
      attempt: values[at.attempt] as number,
      ...(workflowId ? { workflow_id: workflowId as string } : {}),
    };
  }
}

/** A job's internals from its row. */
export function internalsFromRow(row: JobRow): JobInternals {
  const x: Record<string, unknown> = {};
  for (const column of INTERNAL_COLUMNS) {
    const value = row[column.column];
    if (value !== null && value !== undefined) x[column.key] = read(column, value);
  }
  const rest = row['x_rest'] as Record<string, unknown> | null;
  if (rest) Object.assign(x, rest);
  return x as unknown as JobInternals;
}

export function storedFromRow(row: JobRow): StoredJob {
  return { job: jobFromRow(row), x: internalsFromRow(row) };
}

/** A summary from the row's light columns. */
export function summaryFromRow(row: JobRow): JobSummary {
  return {
    id: row.id,
    type: row['type'] as string,
    queue: row['queue'] as string,
    state: row.state as JobState,
    attempt: row['attempt'] as number,
    ...(row['workflow_id'] ? { workflow_id: row['workflow_id'] as string } : {}),
  };
}

function write(column: Column, value: unknown): unknown {
  return column.type === 'json' ? JSON.stringify(value) : value;
}

/** The record a job is inserted from (jsonb_to_recordset in jobInsert.sql): one field per column. */
export function recordOf(stored: StoredJob): Record<string, unknown> {
  const { job, x } = stored;
  const record: Record<string, unknown> = { id: job.id, state: job.state };
  const doc: Record<string, unknown> = {};
  for (const column of ENVELOPE_COLUMNS) {
    const value = job[column.key];
    if (value !== undefined) record[column.column] = write(column, value);
  }
  for (const key in job) {
    if (IDENTITY.has(key) || ENVELOPE_BY_KEY.has(key) || job[key] === undefined) continue;
    doc[key] = job[key];
  }
  record['doc'] = doc;
  let rest: Record<string, unknown> | undefined;
  const internals = x as unknown as Record<string, unknown>;
  for (const key in internals) {
    const value = internals[key];
    if (value === undefined) continue;
    const column = INTERNAL_BY_KEY.get(key);
    if (column !== undefined) record[column.column] = write(column, value);
    else (rest ??= {})[key] = value;
  }
  if (rest !== undefined) record['x_rest'] = rest;
  return record;
}

/** Where each field of a job, and each of its internals, goes in an insert: its column's position and type. */
const insertPositions = (columns: readonly Column[]) => new Map(columns.map((c) => [c.key, { at: INSERT_COLUMNS.indexOf(c), type: c.type }] as const));
const ENVELOPE_AT = insertPositions([...INSERT_COLUMNS.slice(0, 2), ...ENVELOPE_COLUMNS]);
const INTERNAL_AT = insertPositions(INTERNAL_COLUMNS);
const DOC_AT = INSERT_COLUMNS.findIndex((c) => c.column === 'doc');
const REST_AT = INSERT_COLUMNS.findIndex((c) => c.column === 'x_rest');

/** A column's value as its array element's text (json, jsonb and text[] columns as JSON text). */
function elementText(type: Column['type'], value: unknown): string {
  if (type === 'json' || type === 'jsonb' || type === 'text[]') return arrayElement(JSON.stringify(value));
  return typeof value === 'string' ? arrayElement(value) : String(value);
}

const NEEDS_ESCAPE = /["\\]/;
/**
 * A string as a quoted element of a PostgreSQL array literal. Written here rather than left to pg, which
 * escapes every element with two regular expressions: 2.6 µs per 46-column job against 1.3 (2026-11-27).
 */
function arrayElement(text: string): string {
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
}

/**
 * The parameters jobs are inserted from (`{{job_unnest}}` in jobInsert.sql): one array literal per column of
 * INSERT_COLUMNS, each job's value or NULL; `{}` for a column no job of the batch sets, which unnest pads
 * with NULLs. Envelope fields without a column go to `doc`, internals without one to `x_rest`.
 */
export function insertColumnsOf(jobs: readonly StoredJob[]): string[] {
  const columns: string[][] = INSERT_COLUMNS.map(() => []);
  const set: boolean[] = INSERT_COLUMNS.map(() => false);
  const put = (at: number, row: number, text: string) => {
    const values = columns[at]!;
    while (values.length < row) values.push('NULL');
    values.push(text);
    set[at] = true;
  };
  jobs.forEach(({ job, x }, row) => {
    const doc: Record<string, unknown> = {};
    const fields = job as unknown as Record<string, unknown>;
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      const column = ENVELOPE_AT.get(key);
      if (column !== undefined) put(column.at, row, elementText(column.type, value));
      else doc[key] = value;
    }
    put(DOC_AT, row, elementText('jsonb', doc));
    let rest: Record<string, unknown> | undefined;
    const internals = x as unknown as Record<string, unknown>;
    for (const key in internals) {
      const value = internals[key];
      if (value === undefined) continue;
      const column = INTERNAL_AT.get(key);
      if (column !== undefined) put(column.at, row, elementText(column.type, value));
      else (rest ??= {})[key] = value;
    }
    if (rest !== undefined) put(REST_AT, row, elementText('jsonb', rest));
  });
  return columns.map((values, at) => {
    if (!set[at]) return '{}';
    while (values.length < jobs.length) values.push('NULL');
    return `{${values.join(',')}}`;
  });
}
