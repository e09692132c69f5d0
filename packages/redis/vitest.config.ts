import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { longestFirst } from '../../scripts/test/longest-first.js';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds.
const conditions = ['@ojskit/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/temp-dir.global.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Vitest's default (one worker fewer than the cores) runs files one at a time on a two-core machine. These
    // files mostly wait on Redis round trips and each keeps its keys under a prefix of its own, so two
    // files at a time keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files, a few lines each: vitest would start them last.
    sequence: { sequencer: longestFirst(['test/contract.test.ts', 'test/worker.redis.test.ts']) },
  },
});
