import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { longestFirst } from '../../scripts/test/longest-first.js';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds. As in
// packages/postgres: Vitest hands these conditions to Node, and `import` there would make pg's CJS
// `require('pg-pool')` load pg-pool's ESM build (the kafka+postgres suites load pg).
const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest's default (one worker fewer than the cores) runs files one at a time on a two-core machine. These
    // files mostly wait on round trips to a test broker each file starts for itself, so two files at a time
    // keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The long files first (30-60 s each under load; `pnpm test` runs the shared suites as a step of their own,
    // the rest as another), so no long one starts last behind the short ones.
    sequence: {
      sequencer: longestFirst([
        'test/contract.postgres.kafka.test.ts',
        'test/driver-contract.postgres.kafka.test.ts',
        'test/fault-store-away.kafka.test.ts',
        'test/fault-dispatcher-killed.kafka.test.ts',
        'test/driver-contract.redis.kafka.test.ts',
        'test/contract.redis.kafka.test.ts',
        'test/driver-faults.kafka.test.ts',
        'test/group.kafka.test.ts',
        'test/fault-worker-killed.kafka.test.ts',
      ]),
    },
  },
});
