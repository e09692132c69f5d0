/** The shared driver-level suite against Redis: a fresh key prefix per case, peers on connections of their own. */
import { describe } from 'vitest';
import { runDriverContract } from '@ojskit/contract';
import type { RedisDriver } from '../src/index.js';
import { dispose, redisAvailable, testDriver, uniquePrefix } from './support.js';

if (redisAvailable) {
  runDriverContract({
    name: 'redis',
    create: async () => {
      const prefix = uniquePrefix('drv');
      const driver = testDriver({}, prefix);
      const peers: RedisDriver[] = [];
      return {
        driver,
        peer: async () => {
          const peer = testDriver({}, prefix);
          peers.push(peer);
          return peer;
        },
        close: async () => {
          await Promise.all(peers.map((p) => p.close()));
          await dispose(driver);
        },
      };
    },
  });
} else {
  describe.skip('OJS driver contract: redis (Redis unreachable; fails under CI=true)', () => {});
}
