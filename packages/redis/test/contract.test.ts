/** The shared backend contract suite against Redis, one key prefix per case. */
import { describe } from 'vitest';
import { Engine } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract } from '@ojskit/contract';
import { dispose, redisAvailable, testDriver } from './support.js';

if (redisAvailable) {
  runBackendContract({
    name: 'redis',
    create: async () => {
      const clock = new ManualClock();
      const driver = testDriver();
      const engine = new Engine({ driver, clock });
      return {
        api: engine,
        clock,
        driver,
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          await engine.stop();
          await dispose(driver);
        },
      };
    },
  });
} else {
  describe.skip('OJS backend contract: redis (Redis unreachable; fails under CI=true)', () => {});
}
