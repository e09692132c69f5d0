/**
 * The job row layout, as data: which envelope fields and which internals have a column of their own, and
 * of what type. One catalogue drives the mapper (row ↔ StoredJob), the encoding of transitions and inserts,
 * and the SQL fragments the statements are rendered with ({{job_columns}}, {{transition_assignments}}, …),
 * so a field is named in one place.
 *
 * Why columns rather than one jsonb document: the hot statements (claim, complete) then write a handful of
 * scalars instead of rebuilding a jsonb value per row, and the indexes read plain columns.
 * Envelope fields without a column (retry, unique, tags, timeouts, unknown attributes) live in `doc` (jsonb);
 * internals without one in `x_rest`. The caller's data (args, meta, result) and errors are `json`, which keeps
 * their text as sent (jsonb would reorder keys and refuse \u0000).
 */

/** How a column's value travels: SQL type, and whether JS values go through JSON text. */
export type ColumnType = 'text' | 'integer' | 'float8' | 'boolean' | 'json' | 'jsonb' | 'text[]';

export interface Column {
  /** Envelope key (snake_case) or internal key (camelCase). */
  key: string;
  column: string;
  type: ColumnType;
}

const env = (key: string, type: ColumnType = 'text'): Column => ({ key, column: key, type });
const int = (key: string, column: string, type: ColumnType): Column => ({ key, column, type });

/** Envelope fields with a column, in wire order. `id` and `state` are handled apart (never set by a patch). */
export const ENVELOPE_COLUMNS: readonly Column[] = [
  env('type'),
  env('queue'),
  env('args', 'json'),
  env('meta', 'json'),
  env('priority', 'integer'),
  env('attempt', 'integer'),
  env('max_attempts', 'integer'),
  env('created_at'),
  env('enqueued_at'),
  env('scheduled_at'),
  env('expires_at'),
  env('activated_at'),
  env('started_at'),
  env('completed_at'),
  env('cancelled_at'),
  env('discarded_at'),
  env('expired_at'),
  env('next_attempt_at'),
  env('retry_delay_ms', 'float8'),
  env('worker_id'),
  env('result', 'json'),
  env('error', 'json'),
  env('errors', 'json'),
  env('workflow_id'),
];

/** Internal fields (JobInternals) with a column. Unknown internals go to `x_rest`. */
export const INTERNAL_COLUMNS: readonly Column[] = [
  int('dueAt', 'x_due_at', 'float8'),
  int('expiresAt', 'x_expires_at', 'float8'),
  int('visibleUntil', 'x_visible_until', 'float8'),
  int('timeoutAt', 'x_timeout_at', 'float8'),
  int('visibilityMs', 'x_visibility_ms', 'float8'),
  int('claimVisibilityMs', 'x_claim_visibility_ms', 'float8'),
  int('timeoutMs', 'x_timeout_ms', 'float8'),
  int('uniqueKey', 'x_unique_key', 'text'),
  int('uniqueStates', 'x_unique_states', 'text[]'),
  int('uniqueUntil', 'x_unique_until', 'float8'),
  int('uniqueOnConflict', 'x_unique_on_conflict', 'text'),
  int('deadLetter', 'x_dead_letter', 'boolean'),
  int('finishedAt', 'x_finished_at', 'float8'),
  int('progress', 'x_progress', 'json'),
  int('workflowIndex', 'x_workflow_index', 'integer'),
  int('workflowRole', 'x_workflow_role', 'text'),
];

/**
 * Every column a new job row is written with, in order: `id`, `state`, the envelope's, `doc`, the internals',
 * `x_rest`. An insert sends one array per column (job-row.ts `insertColumnsOf`, read by `{{job_unnest}}`).
 */
export const INSERT_COLUMNS: readonly Column[] = [
  env('id'),
  env('state'),
  ...ENVELOPE_COLUMNS,
  env('doc', 'jsonb'),
  ...INTERNAL_COLUMNS,
  int('rest', 'x_rest', 'jsonb'),
];

export const ENVELOPE_BY_KEY: ReadonlyMap<string, Column> = new Map(ENVELOPE_COLUMNS.map((c) => [c.key, c]));
export const INTERNAL_BY_KEY: ReadonlyMap<string, Column> = new Map(INTERNAL_COLUMNS.map((c) => [c.key, c]));

/** Every column a job row is read from, in order. */
const READ_COLUMNS: readonly string[] = ['id', 'state', ...ENVELOPE_COLUMNS.map((c) => c.column), 'doc', ...INTERNAL_COLUMNS.map((c) => c.column), 'x_rest'];
/**
 * Every column of the `jobs` and `jobs_finished` tables: what is read, plus the FIFO number, the state before
 * the last transition and the job's history (history-sql.ts). A row moving between the two tables is inserted
 * with all of them.
 */
export const TABLE_COLUMNS: readonly string[] = [...READ_COLUMNS, 'seq', 'prev_state', 'history', 'history_dropped'];
const JSON_COLUMNS: ReadonlySet<string> = new Set([...ENVELOPE_COLUMNS, ...INTERNAL_COLUMNS].filter((c) => c.type === 'json').map((c) => c.column));

/** The columns of the envelope alone (what a claim or a transition hands back: no internals). */
const ENVELOPE_READ_COLUMNS: readonly string[] = ['id', 'state', ...ENVELOPE_COLUMNS.map((c) => c.column), 'doc'];
/** The columns a transition's summary is read from: its id and new state are the op's. */
const SUMMARY_COLUMNS: readonly string[] = ['type', 'queue', 'attempt', 'workflow_id'];

function listOf(columns: readonly string[], prefix: string): string {
  return columns.map((c) => (JSON_COLUMNS.has(c) ? `${prefix}${c}::text AS ${c}` : `${prefix}${c}`)).join(', ');
}

/**
 * The select list of a job row. json columns come back as text: the mapper parses them, so JSON null and
 * SQL NULL (absent) stay apart.
 */
function selectList(prefix: string): string {
  return listOf(READ_COLUMNS, prefix);
}

/**
 * `{ column → value }` as jsonb_to_recordset reads it (json columns as JSON text): the insert of the previous
 * migration set, which the upgrade test runs (`test/fixtures/migrations-0001/jobInsert.sql`).
 */
function recordDefinition(): string {
  const sqlType = (c: Column) => (c.type === 'json' ? 'text' : c.type);
  const cols = [
    'id text',
    'state text',
    ...ENVELOPE_COLUMNS.map((c) => `${c.column} ${sqlType(c)}`),
    'doc jsonb',
    ...INTERNAL_COLUMNS.map((c) => `${c.column} ${sqlType(c)}`),
    'x_rest jsonb',
  ];
  return cols.join(', ');
}

function insertColumns(): string {
  return INSERT_COLUMNS.map((c) => c.column).join(', ');
}

/** The same list, reading each from record `r` (json columns cast from their text). */
function insertValues(): string {
  const value = (c: Column) => (c.type === 'json' ? `r.${c.column}::json` : `r.${c.column}`);
  return INSERT_COLUMNS.map(value).join(', ');
}

/** The first parameter of an insert's column arrays: `$1` is the statement's own (the time, as ISO text). */
const FIRST_COLUMN_PARAM = 2;

/**
 * The rows of an insert as `unnest` of one array parameter per column (from `$2`, INSERT_COLUMNS order), as
 * record `r`. Arrays rather than one jsonb document of records: PostgreSQL parses a 1 000-job jsonb batch and
 * builds its records in 10–13 ms, the same rows as arrays in 3 (backend CPU, 2026-11-27): a third of an
 * insert's cost. A column no job sets is an empty array, which `unnest` pads with NULLs. json columns travel as
 * their text; a `text[]` column as JSON text (an array parameter cannot hold arrays of varying length).
 */
function unnestDefinition(): string {
  const arrayType = (c: Column) => (c.type === 'json' || c.type === 'text[]' ? 'text[]' : `${c.type}[]`);
  const params = INSERT_COLUMNS.map((c, i) => `$${i + FIRST_COLUMN_PARAM}::${arrayType(c)}`).join(', ');
  return `unnest(${params}) AS r(${insertColumns()})`;
}

/** insertValues for the rows of `{{job_unnest}}`: json and text[] columns are converted from their text there. */
function unnestValues(): string {
  const value = (c: Column) => {
    if (c.type === 'json') return `r.${c.column}::json`;
    if (c.type === 'text[]') return `CASE WHEN r.${c.column} IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(r.${c.column}::jsonb)) END`;
    return `r.${c.column}`;
  };
  return INSERT_COLUMNS.map(value).join(', ');
}

/**
 * SET assignments applying an op `o` (jobTransitionMany.sql) to row `j`: each column takes the op's value when
 * the op sets its key (`o.s` envelope, `o.x` internals, values as JSON; json columns as JSON text), becomes
 * NULL when the op removes it (`o.u` / `o.xu`), and is left alone otherwise.
 */
function transitionAssignments(): string {
  const cast = (c: Column, from: string) => {
    const text = `(${from}->>'${c.key}')`;
    switch (c.type) {
      case 'json':
        return `${text}::json`;
      case 'text[]':
        return `ARRAY(SELECT jsonb_array_elements_text(${from}->'${c.key}'))`;
      default:
        return `${text}::${c.type}`;
    }
  };
  const assign = (c: Column, set: string, unset: string) =>
    `${c.column} = CASE WHEN ${set} ? '${c.key}' THEN ${cast(c, set)} WHEN '${c.key}' = ANY (${unset}) THEN NULL ELSE j.${c.column} END`;
  return [...ENVELOPE_COLUMNS.map((c) => assign(c, 'o.s', 'o.u')), ...INTERNAL_COLUMNS.map((c) => assign(c, 'o.x', 'o.xu'))].join(',\n    ');
}

/**
 * The select list that inserts a row moving between the tables, in TABLE_COLUMNS order: each column from
 * the deleted row `from`, unless `changes` gives it an expression.
 */
export function movedValues(from: string, changes: Readonly<Record<string, string>>): string {
  return TABLE_COLUMNS.map((c) => changes[c] ?? `${from}.${c}`).join(', ');
}

/** Template values for the job statements. */
export function jobTemplateValues(): Record<string, string> {
  return {
    job_columns: selectList(''),
    job_columns_j: selectList('j.'),
    job_envelope_columns: listOf(ENVELOPE_READ_COLUMNS, ''),
    job_envelope_columns_j: listOf(ENVELOPE_READ_COLUMNS, 'j.'),
    job_summary_columns_j: listOf(SUMMARY_COLUMNS, 'j.'),
    job_record: recordDefinition(),
    job_insert_columns: insertColumns(),
    job_insert_values: insertValues(),
    job_unnest: unnestDefinition(),
    job_unnest_values: unnestValues(),
    transition_assignments: transitionAssignments(),
    table_columns: TABLE_COLUMNS.join(', '),
  };
}
