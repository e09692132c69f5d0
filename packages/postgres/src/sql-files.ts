/**
 * Loads the SQL that ships with the package. This module sits at the top of src/ so the same relative
 * URLs resolve from src/*.ts (tests) and dist/*.js (published: `src/` and `migrations/` are in `files`).
 */
import { readFileSync, readdirSync } from 'node:fs';

const SQL_DIR = new URL('../src/sql/', import.meta.url);
const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);

const cache = new Map<string, string>();

/** The text of `src/sql/<name>.sql`. */
export function sqlFile(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`${name}.sql`, SQL_DIR), 'utf8');
    cache.set(name, text);
  }
  return text;
}

/** A versioned migration: `NNNN_name.sql`, applied once, in order. */
export interface MigrationFile {
  version: string;
  text: string;
}

/** Versioned migrations in order. */
export function versionedMigrations(): MigrationFile[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), text: readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8') }));
}

/** The repeatable lifecycle migration (CHECK constraint and trigger rendered from core). */
export function lifecycleMigration(): string {
  return readFileSync(new URL('lifecycle.sql', MIGRATIONS_DIR), 'utf8');
}
