/** SQL string literals for values rendered into the package's .sql files at build time. */

/**
 * A SQL string literal: single quotes doubled.
 * @example sqlLiteral("it's") // "'it''s'"
 */
export function sqlLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
