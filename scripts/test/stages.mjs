/**
 * What `pnpm test` runs, stage by stage; the steps of a stage run together. Steps share a stage when neither
 * reads what the other writes: the packages' tests and the consumer checks read the builds the stage before
 * made, and each works in its own directories, key prefixes and schemas.
 */

/** Package tests that run at once; each package's vitest runs up to two files at a time itself. */
const TEST_CONCURRENCY = 3;

export const STAGES = [
  // A stale spec fails in seconds, before minutes of building.
  [{ name: 'spec:check', command: 'pnpm run spec:check' }],
  [
    { name: 'build', command: 'turbo run build' },
    // One program for every Node package, one for the playground: see tsconfig.typecheck.json.
    { name: 'typecheck', command: 'tsc -p tsconfig.typecheck.json' },
    { name: 'typecheck:playground', command: 'tsc -p apps/playground/tsconfig.json --noEmit' },
    { name: 'lint', command: 'eslint .' },
    { name: 'cycles', command: 'pnpm run cycles' },
    { name: 'format', command: 'pnpm run format:check' },
  ],
  [
    // Replays the builds from turbo's cache (`dependsOn: ["^build"]`), rebuilding nothing.
    // --continue: one package's failure does not stop the others, so a run reports every failing package.
    { name: 'test', command: `turbo run test --concurrency=${TEST_CONCURRENCY} --continue` },
    { name: 'consumer:check', command: 'pnpm run consumer:check' },
    { name: 'first-hour', command: 'pnpm run first-hour' },
  ],
];
