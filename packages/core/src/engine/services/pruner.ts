/** Pruner: deletes finished jobs older than the retention, so stores stay bounded under steady load. */
import type { BackgroundService } from './service.js';

const BATCH = 5_000;

export const pruner: BackgroundService = {
  name: 'pruner',
  intervalMs: (ctx) => ctx.settings.services.pruneMs,
  async run(ctx) {
    const now = ctx.clock.now();
    const r = ctx.settings.retention;
    // Terminal jobs are pruned by the shortest non-DLQ retention they qualify for; the DLQ has its own.
    const before = now - Math.min(r.completedMs, r.cancelledMs, r.discardedMs);
    let total = 0;
    for (;;) {
      const n = await ctx.driver.jobPrune({ before, limit: BATCH });
      total += n;
      if (n < BATCH) break;
    }
    total += await ctx.driver.jobPrune({ before: now - r.deadLetterMs, limit: BATCH, deadLetter: true });
    return total;
  },
};
