import { defineConfig } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds.
// Vitest also hands these conditions to Node (--conditions); listing `import` there would make pg's CJS
// `require('pg-pool')` load pg-pool's ESM build (the Postgres run needs pg), so only the extra condition
// and `node` are named.
const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The files share a worker's modules instead of loading them again per file (loading was most of the run:
    // 12.2 -> 9.0 s of CPU). They hold no state in shared modules; a file that changes global state (fake timers)
    // restores it.
    isolate: false,
  },
});
