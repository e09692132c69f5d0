/**
 * Regenerates the derived parts of spec/ from @ojskit/core: the lifecycle block of spec/lifecycle.md,
 * spec/universal-model.md and spec/schemas/*.schema.json. With `--check` nothing is written; the run fails naming every stale file.
 * Both modes also fail when a prose document misses an event type or error code that core defines.
 *
 * Usage (from the repo root): `pnpm spec` / `pnpm spec:check`.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleness, type GeneratedFile } from './generated-file.js';
import { missingCoverage } from './coverage.js';
import { generateLifecycle } from './lifecycle.js';
import { generateSchemas } from './schemas.js';
import { generateUniversalModel } from './universal-model.js';

const specDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(specDir, '..');
const schemasDir = join(specDir, 'schemas');
const check = process.argv.includes('--check');

const files: GeneratedFile[] = [
  generateLifecycle(join(specDir, 'lifecycle.md')),
  generateUniversalModel(join(specDir, 'universal-model.md')),
  ...generateSchemas(schemasDir),
];
const expected = new Set(files.map((f) => f.path));
// Schema files whose export no longer exists are stale too: a spec must not describe a schema core dropped.
const orphans = readdirSync(schemasDir, { withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.schema.json') && !expected.has(join(schemasDir, e.name)))
  .map((e) => join(schemasDir, e.name));
const show = (path: string): string => relative(repoRoot, path);

// Prose cannot be generated, so a gap there fails both modes: the author has to write the sentence.
const uncovered = missingCoverage(specDir);
if (uncovered.length > 0) {
  console.error(`spec: ${uncovered.length} name(s) defined in @ojskit/core are missing from the prose:\n${uncovered.join('\n')}`);
  process.exitCode = 1;
}

if (check) {
  const problems = [
    ...files.flatMap((f) => {
      const why = staleness(f);
      return why ? [`  ${show(f.path)} (${why})`] : [];
    }),
    ...orphans.map((path) => `  ${show(path)} (no longer generated)`),
  ];
  if (problems.length > 0) {
    console.error(`spec:check: ${problems.length} generated file(s) are stale:\n${problems.join('\n')}\nRun \`pnpm spec\` and commit the result.`);
    process.exit(1);
  }
  if (uncovered.length === 0) console.log(`spec:check: ${files.length} generated files are up to date; prose covers core's event types and error codes.`);
} else {
  mkdirSync(schemasDir, { recursive: true });
  let changed = 0;
  for (const file of files) {
    if (!staleness(file)) continue;
    writeFileSync(file.path, file.contents);
    changed += 1;
    console.log(`wrote ${show(file.path)}`);
  }
  for (const path of orphans) {
    rmSync(path);
    console.log(`removed ${show(path)}`);
  }
  console.log(`spec: ${files.length} files generated, ${changed} changed, ${orphans.length} removed.`);
}
