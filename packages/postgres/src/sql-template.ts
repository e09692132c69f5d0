/** Renders the package's .sql files: schema name and the lifecycle lists taken from core, never typed in SQL. */
import { allowedFrom, JOB_STATES, TERMINAL_STATES, TRANSITIONS, type JobState, type Trigger } from '@ojskit/core';
import { jobTemplateValues, movedValues } from './job-columns.js';

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

/** A SQL string literal. */
export function sqlLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map(sqlLiteral).join(', ')}]::text[]`;
}

/** `from>to` for every row of core's transition table that starts from a state. */
export function legalPairs(): string[] {
  return [...new Set(TRANSITIONS.filter((t) => t.from !== null).map((t) => `${t.from}>${t.to}`))];
}

/** The one state a trigger's edges lead to (e.g. `expiry` → discarded); an error when core has several. */
function targetOf(trigger: Trigger): JobState {
  const targets = [...new Set(TRANSITIONS.filter((t) => t.trigger === trigger).map((t) => t.to))];
  if (targets.length !== 1) throw new Error(`expected one target state for ${trigger}, found ${targets.join(', ')}`);
  return targets[0]!;
}
const expiryState = (): JobState => targetOf('expiry');

/** The values every template may use. */
export function templateValues(schema: string): Record<string, string> {
  return {
    schema: `"${assertSchemaName(schema)}"`,
    job_states: textArray(JOB_STATES),
    terminal_states: TERMINAL_STATES.map(sqlLiteral).join(', '),
    legal_pairs: textArray(legalPairs()),
    // The states a due time promotes (core's `timer` edges into available).
    timer_states: textArray(allowedFrom(targetOf('timer'), 'timer')),
    // The states a FETCH claims from (core's `fetch` edges into active).
    fetch_states: textArray(allowedFrom(targetOf('fetch'), 'fetch')),
    terminal_state_array: textArray(TERMINAL_STATES),
    // What a due time, a FETCH and an expiry move a job to, and the states an expiry applies to.
    timer_target: `${sqlLiteral(targetOf('timer'))}::text`,
    fetch_target: `${sqlLiteral(targetOf('fetch'))}::text`,
    expirable_states: textArray(allowedFrom(expiryState(), 'expiry')),
    expiry_state: sqlLiteral(expiryState()),
    // A waiting job past its expires_at, moved to jobs_finished from the deleted row `g` (params in `p`).
    expired_move_values: movedValues('g', {
      state: `${sqlLiteral(expiryState())}::text`,
      discarded_at: 'p.now_iso',
      expired_at: 'p.now_iso',
      x_finished_at: 'p.now_ms',
      prev_state: 'g.state',
    }),
    ...jobTemplateValues(),
  };
}

/**
 * Replaces each `{{name}}` with its value; an unknown name is an error, so a typo never reaches Postgres.
 * @example renderSql('SELECT * FROM {{schema}}.jobs', templateValues('ojskit'))
 */
export function renderSql(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`SQL template uses unknown placeholder {{${name}}}`);
    return value;
  });
}
