/**
 * Prose coverage: lists that core owns but the spec describes in prose (event types, error codes) must each
 * be named in their document, so adding one to core without documenting it fails `pnpm spec:check`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOG, EVENT_TYPES } from '@ojskit/core';

interface Coverage {
  readonly document: string;
  readonly what: string;
  readonly names: readonly string[];
}

const COVERAGE: readonly Coverage[] = [
  { document: 'events.md', what: 'event type (EVENT_TYPES)', names: EVENT_TYPES },
  { document: 'http.md', what: 'error code (ERROR_CATALOG)', names: Object.keys(ERROR_CATALOG) },
];

/** One message per name that core has and the document does not mention as `code`. */
export function missingCoverage(specDir: string): string[] {
  const problems: string[] = [];
  for (const { document, what, names } of COVERAGE) {
    const text = readFileSync(join(specDir, document), 'utf8');
    for (const name of names) {
      if (!text.includes(`\`${name}\``)) problems.push(`  spec/${document} does not mention ${what} \`${name}\``);
    }
  }
  return problems;
}
