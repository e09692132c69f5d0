import { defineConfig } from 'vitest/config';

const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Browser files each start a gateway and a Chromium: one at a time on a two-core machine.
    fileParallelism: false,
  },
});
