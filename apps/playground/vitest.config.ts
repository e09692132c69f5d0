import { defineConfig } from 'vitest/config';

const conditions = ['@ojskit/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts'],
    // One Chromium for every file (each works in contexts of its own).
    globalSetup: ['test/support/chromium.global.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Browser files each start a gateway and drive the browser: one at a time on a two-core machine.
    fileParallelism: false,
  },
});
