/** The driver's SQL, rendered once per schema, run as prepared statements on the hot paths. */
import { createHash } from 'node:crypto';
import type { QueryConfig, QueryResultRow } from 'pg';
import { toOjsError } from './pg-errors.js';
import { sqlFile } from './sql-files.js';
import { renderSql, templateValues, type TemplateOptions } from './sql-template.js';

/** Anything that runs a query: a Pool, a PoolClient, or a caller's Client inside their transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** True for values that can run queries (how a caller's `tx` is recognised). */
export function isQueryable(value: unknown): value is Queryable {
  return typeof (value as { query?: unknown } | null)?.query === 'function';
}

/**
 * PostgreSQL keeps the first 63 bytes of a prepared statement's name (NAMEDATALEN - 1): with a long schema,
 * `jobInsert` and `jobInsert.lockUniqueKeys`, or two shapes of `jobTransitionMany`, would share one and the
 * second would fail to prepare (`42P05`) on every connection that ran the first.
 */
const MAX_NAME_BYTES = 63;

/** A prepared statement's name: readable when it fits, else a digest of the readable one (ASCII either way). */
export function statementName(schema: string, name: string): string {
  const readable = `ojskit:${schema}:${name}`;
  return readable.length <= MAX_NAME_BYTES ? readable : `ojskit:${createHash('sha1').update(readable).digest('hex')}`;
}

export class Statements {
  private readonly values: Record<string, string>;
  private readonly texts = new Map<string, string>();
  private readonly names = new Map<string, string>();

  /** Whether the statements write history lines (history-sql.ts). */
  readonly history: boolean;

  constructor(
    readonly schema: string,
    options: TemplateOptions = {},
  ) {
    this.values = templateValues(schema, options);
    this.history = options.history !== false;
  }

  /**
   * The rendered text of `src/sql/<name>.sql`. A variant (`<file>#<key>`) renders the same file with extra
   * template values (a statement whose column lists depend on its input's shape); they are given the first
   * time the variant is asked for and cached under its name.
   */
  text(name: string, variantValues?: () => Record<string, string>): string {
    let text = this.texts.get(name);
    if (text === undefined) {
      const [file, variant] = name.split('#') as [string, string | undefined];
      if (variant !== undefined && variantValues === undefined) throw new Error(`statement variant ${name} needs its values`);
      let values = this.values;
      if (variantValues !== undefined) {
        // A variant's values may use the common ones (`{{schema}}`, the lifecycle lists): rendered first.
        values = { ...this.values };
        for (const [key, value] of Object.entries(variantValues())) values[key] = renderSql(value, this.values);
      }
      text = renderSql(sqlFile(file), values);
      this.texts.set(name, text);
    }
    return text;
  }

  /** The prepared statement name of statement `name` in this schema (see statementName). */
  private nameOf(name: string): string {
    let prepared = this.names.get(name);
    // Statements without history differ in text: never under the name of the ones with it on a shared pool.
    if (prepared === undefined) this.names.set(name, (prepared = statementName(this.schema, this.history ? name : `${name}~nh`)));
    return prepared;
  }

  /** The template values every statement can use (the job column lists, the lifecycle lists). */
  value(name: string): string {
    const value = this.values[name];
    if (value === undefined) throw new Error(`unknown template value ${name}`);
    return value;
  }

  /**
   * Runs statement `name` for rows as arrays of values (pg's `rowMode: 'array'`), with the column names in
   * order: the hot statements return some thirty columns a row, and keyed row objects cost their building
   * and a keyed read per column.
   */
  async runArrays(
    on: Queryable,
    name: string,
    values: unknown[],
    options: { oneOff?: boolean; variantValues?: () => Record<string, string> } = {},
  ): Promise<{ rows: unknown[][]; columns: string[] }> {
    // pg's QueryArrayConfig; Queryable is typed for keyed rows, hence the assertion.
    const config = { text: this.text(name, options.variantValues), values, rowMode: 'array' } as QueryConfig;
    if (options.oneOff !== true) config.name = this.nameOf(name);
    try {
      const result = (await on.query(config)) as unknown as { rows: unknown[][]; fields?: Array<{ name: string }> };
      return { rows: result.rows, columns: (result.fields ?? []).map((f) => f.name) };
    } catch (error) {
      throw toOjsError(error, name);
    }
  }

  /**
   * Runs statement `name`. Named (server-side prepared, planned once per connection) unless `oneOff`:
   * caller transactions run unnamed so nothing is left prepared on the caller's connection.
   */
  async run<R extends QueryResultRow = QueryResultRow>(
    on: Queryable,
    name: string,
    values: unknown[],
    options: { oneOff?: boolean; variantValues?: () => Record<string, string> } = {},
  ): Promise<R[]> {
    const config: QueryConfig = { text: this.text(name, options.variantValues), values };
    if (options.oneOff !== true) config.name = this.nameOf(name);
    try {
      const result = await on.query<R>(config);
      return result.rows;
    } catch (error) {
      throw toOjsError(error, name);
    }
  }
}
