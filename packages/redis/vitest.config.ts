import { defineConfig } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources so tests never run stale builds.
const conditions = ['@ojskit/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'], globalSetup: ['test/temp-dir.global.ts'], testTimeout: 20_000, hookTimeout: 30_000 },
});
