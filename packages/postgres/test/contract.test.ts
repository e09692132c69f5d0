/** The shared backend contract suite against PostgreSQL: one fresh schema per case, dropped afterwards. */
import { describe } from 'vitest';
import { Engine, ManualClock } from '@ojskit/core';
import { runBackendContract } from '@ojskit/contract';
import { HAVE_PG, openTestDatabase } from './support/database.js';

if (HAVE_PG) {
  runBackendContract({
    name: 'postgres',
    create: async () => {
      const clock = new ManualClock();
      const db = await openTestDatabase();
      const engine = new Engine({ driver: db.driver, clock });
      return {
        api: engine,
        clock,
        driver: db.driver,
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          await engine.stop();
          await db.drop();
        },
      };
    },
  });
} else {
  describe.skip('OJS backend contract: postgres (PostgreSQL unreachable; fails under CI=true)', () => {});
}
