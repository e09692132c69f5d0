/** The driver's SQL, rendered once per schema, run as prepared statements on the hot paths. */
import type { QueryConfig, QueryResultRow } from 'pg';
import { toOjsError } from './pg-errors.js';
import { sqlFile } from './sql-files.js';
import { renderSql, templateValues } from './sql-template.js';

/** Anything that runs a query: a Pool, a PoolClient, or a caller's Client inside their transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** True for values that can run queries (how a caller's `tx` is recognised). */
export function isQueryable(value: unknown): value is Queryable {
  return typeof (value as { query?: unknown } | null)?.query === 'function';
}

/** Statements rendered twice from one file: the values that differ. */
const VARIANTS: Record<string, (values: Record<string, string>) => Record<string, string>> = {
  'jobTransitionMany#job': (v) => ({ transition_returning: v['job_envelope_columns_j']! }),
  'jobTransitionMany#summary': (v) => ({ transition_returning: v['job_summary_columns_j']! }),
};

export class Statements {
  private readonly values: Record<string, string>;
  private readonly texts = new Map<string, string>();

  constructor(readonly schema: string) {
    this.values = templateValues(schema);
  }

  /**
   * The rendered text of `src/sql/<name>.sql`. A `variant` (`name#variant`) renders the same file with
   * the extra template values registered for it (see VARIANTS).
   */
  text(name: string): string {
    let text = this.texts.get(name);
    if (text === undefined) {
      const [file, variant] = name.split('#') as [string, string | undefined];
      const extra = VARIANTS[name];
      if (variant !== undefined && extra === undefined) throw new Error(`unknown statement variant ${name}`);
      const values = extra === undefined ? this.values : { ...this.values, ...extra(this.values) };
      text = renderSql(sqlFile(file), values);
      this.texts.set(name, text);
    }
    return text;
  }

  /**
   * Runs statement `name`. Named (server-side prepared, planned once per connection) unless `oneOff`:
   * caller transactions run unnamed so nothing is left prepared on the caller's connection.
   */
  async run<R extends QueryResultRow = QueryResultRow>(
    on: Queryable,
    name: string,
    values: unknown[],
    options: { oneOff?: boolean } = {},
  ): Promise<R[]> {
    const config: QueryConfig = { text: this.text(name), values };
    if (options.oneOff !== true) config.name = `ojskit:${this.schema}:${name}`;
    try {
      const result = await on.query<R>(config);
      return result.rows;
    } catch (error) {
      throw toOjsError(error, name);
    }
  }
}
