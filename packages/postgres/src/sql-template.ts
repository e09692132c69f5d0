/** Renders the package's .sql files: schema name and the lifecycle lists taken from core, never typed in SQL. */
import { ageBoostRankExpression, DISPATCH_EFFECTS, JOB_STATES, STATE_ROLES, STATE_SETS, transitionTable, type TableOptions } from '@ojskit/core/driver';
import { effectTemplateValues } from './effect-sql.js';
import { jobTemplateValues } from './job-columns.js';
import { sqlLiteral } from './sql-literal.js';

/** Schema names this package accepts: plain identifiers, so they never need case-sensitive quoting rules. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,47}$/;

/**
 * Checks a schema name and returns it.
 * @example assertSchemaName('ojskit') // 'ojskit'
 */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new Error(`Invalid schema name '${schema}': use lowercase letters, digits and '_' (at most 48, not starting with a digit).`);
  }
  return schema;
}

function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map(sqlLiteral).join(', ')}]::text[]`;
}

/**
 * `from>to` for every row of core's transition table that starts from a state; with `dispatchLog`, the
 * dispatch-log rows too (the schema of a Kafka adapter's store).
 */
export function legalPairs(options: TableOptions = {}): string[] {
  return [
    ...new Set(
      transitionTable(options)
        .filter((t) => t.from !== null)
        .map((t) => `${t.from}>${t.to}`),
    ),
  ];
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Core's state sets and roles: `{{due_states}}` is `'scheduled', 'retryable'` (for `IN (…)`), `{{claimed_state}}`
 * is `'active'`; one placeholder per entry of `STATE_SETS` and `STATE_ROLES`, named in snake_case.
 */
export function stateTemplateValues(): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, states] of Object.entries(STATE_SETS)) values[`${snake(name)}_states`] = states.map(sqlLiteral).join(', ');
  for (const [name, state] of Object.entries(STATE_ROLES)) values[`${snake(name)}_state`] = sqlLiteral(state);
  return values;
}

/** What a driver's statements are rendered for: core's table options, and whether they write history (default true). */
export interface TemplateOptions extends TableOptions {
  history?: boolean;
}

/** The values every template may use. */
export function templateValues(schema: string, options: TemplateOptions = {}): Record<string, string> {
  const quoted = `"${assertSchemaName(schema)}"`;
  const base: Record<string, string> = {
    schema: quoted,
    job_states: textArray(JOB_STATES),
    legal_pairs: textArray(legalPairs(options)),
    ...stateTemplateValues(),
    // core's age-boost rank of a job row `a` in a queue aging by `l.age_ms` (enqueued_at is stamped whenever a job
    // enters available; created_at stands in for a row written without it)
    age_rank: ageBoostRankExpression('(extract(epoch FROM COALESCE(a.enqueued_at, a.created_at)::timestamptz) * 1000)::float8', 'a.priority', 'l.age_ms'),
    // whether a queue of a claim statement's `open_queues` has a rate limit or a concurrency of its own (the probe of
    // jobClaim.sql's and jobClaimDispatched.sql's `limited`)
    open_queue_has_limits: `EXISTS (SELECT 1 FROM ${quoted}.queues p WHERE p.name IN (SELECT name FROM open_queues) AND (p.config ? 'rate_limit' OR p.config ? 'concurrency'))`,
    // the state a dispatch log's delivered job waits in (core's DISPATCH_EFFECTS; jobClaimDispatched.sql)
    dispatched_state: sqlLiteral(DISPATCH_EFFECTS.dispatch.to),
    // jobTransitionMany's guard that a delivered job (the marker set) never goes back to where the log took it
    // from: the row `pending → available` is ACTIVATE's, for staged jobs only (a dispatch log's schema; empty
    // elsewhere, where no job carries the marker)
    undelivered_guard:
      options.dispatchLog === true
        ? `AND NOT (j.state = ${sqlLiteral(DISPATCH_EFFECTS.dispatch.to)} AND o."to" IN (${DISPATCH_EFFECTS.dispatch.from.map(sqlLiteral).join(', ')}) AND COALESCE(j.x_rest ? 'dispatchedAt', false))`
        : '',
    ...jobTemplateValues(),
  };
  // The effect fragments name tables (a history line consults the queue's opt-out): rendered with the rest first.
  for (const [name, value] of Object.entries(effectTemplateValues(options.history !== false))) base[name] = renderSql(value, base);
  return base;
}

/** `{{#if name}}…{{else}}…{{/if}}` (the `else` part optional; blocks do not nest). */
const BLOCK = /\{\{#if (\w+)\}\}([\s\S]*?)(?:\{\{else\}\}([\s\S]*?))?\{\{\/if\}\}/g;

/**
 * Replaces each `{{name}}` with its value; an unknown name is an error, so a typo never reaches Postgres.
 * A block `{{#if name}}…{{else}}…{{/if}}` keeps its first part where `name` is `'true'` and its `else` part (or
 * nothing) where it is `'false'`, before the placeholders are filled: a statement rendered per input shape
 * leaves out, rather than switches off, what the shape never does (any other value is an error).
 * @example renderSql('SELECT * FROM {{schema}}.jobs', templateValues('ojskit'))
 */
export function renderSql(text: string, values: Record<string, string>): string {
  const chosen = text.replace(BLOCK, (_, name: string, whenTrue: string, otherwise: string | undefined) => {
    const value = values[name];
    if (value !== 'true' && value !== 'false') throw new Error(`SQL template block {{#if ${name}}} needs true or false, got ${value}`);
    return value === 'true' ? whenTrue : (otherwise ?? '');
  });
  return chosen.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`SQL template uses unknown placeholder {{${name}}}`);
    return value;
  });
}
