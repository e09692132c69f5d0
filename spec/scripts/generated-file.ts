/** A file the spec generators produce, and how `--check` compares it with what is on disk. */
import { readFileSync, existsSync } from 'node:fs';

/** One generated output: where it goes and exactly what it must contain. */
export interface GeneratedFile {
  /** Absolute path. */
  readonly path: string;
  readonly contents: string;
}

/** Why a file on disk is stale, or `undefined` when it matches. */
export function staleness(file: GeneratedFile): 'missing' | 'differs' | undefined {
  if (!existsSync(file.path)) return 'missing';
  return readFileSync(file.path, 'utf8') === file.contents ? undefined : 'differs';
}
