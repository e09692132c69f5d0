import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { longestFirst } from '../../scripts/test/longest-first.js';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds.
// Vitest also hands these conditions to Node (--conditions); listing `import` there would make pg's CJS
// `require('pg-pool')` load pg-pool's ESM build, so only the extra condition and `node` are named.
const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest's default (one worker fewer than the cores) runs files one at a time on a two-core machine. These
    // files mostly wait on PostgreSQL round trips and each works in schemas of its own, so two files
    // at a time keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files, a few lines each: vitest would start them last.
    sequence: { sequencer: longestFirst(['test/contract.test.ts', 'test/faults.pg.test.ts', 'test/worker.pg.test.ts']) },
  },
});
