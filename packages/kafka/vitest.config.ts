import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

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
  },
});
