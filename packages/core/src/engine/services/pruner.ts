/**
 * Pruner: deletes finished jobs past their retention, so stores stay bounded under steady load. Each terminal
 * state is kept for its own engine-wide retention, a queue configuration's `retention` overrides it for that
 * queue, and dead letters have theirs (retention-plan.ts).
 */
import type { BackgroundService } from './service.js';
import { retentionPlan } from './retention-plan.js';

const BATCH = 5_000;

export const pruner: BackgroundService = {
  name: 'pruner',
  intervalMs: (ctx) => ctx.settings.services.pruneMs,
  async run(ctx) {
    const now = ctx.clock.now();
    const configs = await ctx.queueConfigs.current();
    let total = 0;
    for (const call of retentionPlan(now, ctx.settings.retention, configs.values())) {
      for (;;) {
        const n = await ctx.driver.jobPrune({ ...call, limit: BATCH });
        total += n;
        if (n < BATCH) break;
      }
    }
    return total;
  },
};
