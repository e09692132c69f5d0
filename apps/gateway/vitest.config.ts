import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { longestFirst } from '../../scripts/test/longest-first.js';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds.
// Vitest also hands these conditions to Node (--conditions); listing `import` there would make pg's CJS
// `require('pg-pool')` load pg-pool's ESM build (the Postgres suites load pg), so only the extra condition
// and `node` are named.
const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/temp-dir.global.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest's default (one worker fewer than the cores) runs files one at a time on a two-core machine. The
    // Redis and Postgres suites mostly wait on round trips, so two files at a time keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Two to three minutes each on a loaded machine, and a few lines long: vitest would start them last.
    sequence: {
      sequencer: longestFirst([
        'test/contract.http.kafka-postgres-1.test.ts',
        'test/contract.http.kafka-postgres-2.test.ts',
        'test/chaos.test.ts',
        'test/contract.http.postgres.test.ts',
        'test/contract.http.test.ts',
        'test/contract.http.redis.test.ts',
        'test/worker.http.postgres.test.ts',
        'test/worker.http.redis.test.ts',
        'test/worker.http.test.ts',
        'test/worker.http.kafka-postgres.test.ts',
        'test/worker.http.kafka-redis.test.ts',
        'test/contract.http.kafka-redis.test.ts',
        'test/cli.test.ts',
      ]),
    },
  },
});
