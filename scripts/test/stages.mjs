/**
 * What `pnpm test` runs: steps, each started as soon as the steps it names in `after` have passed, so steps
 * that neither read what the other writes run together. Package tests run from TypeScript sources (the
 * `@ojskit/source` condition) and need only the builds turbo's test task depends on; the consumer checks read
 * the packed builds; typecheck, lint, cycles and format read only sources, so they fill the cores while the
 * tests mostly wait on round trips. Each step works in its own directories, key prefixes and schemas.
 */

/** Package tests that run at once; each package's vitest runs up to two files at a time itself. */
const TEST_CONCURRENCY = 3;

export const STEPS = [
  // A stale spec fails in seconds, before minutes of building: everything else waits for it.
  { name: 'spec:check', command: 'pnpm run spec:check', after: [] },
  { name: 'build', command: 'turbo run build', after: ['spec:check'] },
  // Replays the builds from turbo's cache (`dependsOn: ["^build"]`), rebuilding nothing.
  // --continue: one package's failure does not stop the others, so a run reports every failing package.
  { name: 'test', command: `turbo run test --concurrency=${TEST_CONCURRENCY} --continue`, after: ['build'] },
  { name: 'consumer:check', command: 'pnpm run consumer:check', after: ['build'] },
  { name: 'first-hour', command: 'pnpm run first-hour', after: ['build'] },
  // One program for every Node package, one for the playground: see tsconfig.typecheck.json.
  { name: 'typecheck', command: 'tsc -p tsconfig.typecheck.json', after: ['spec:check'] },
  { name: 'typecheck:playground', command: 'tsc -p apps/playground/tsconfig.json --noEmit', after: ['spec:check'] },
  { name: 'lint', command: 'eslint .', after: ['spec:check'] },
  { name: 'cycles', command: 'pnpm run cycles', after: ['spec:check'] },
  { name: 'format', command: 'pnpm run format:check', after: ['spec:check'] },
];
