/** Expirer: jobs past `expires_at` that were never started are discarded without running. */
import { instant } from '../context.js';
import { expiredEvent } from '../job-events.js';
import type { BackgroundService } from './service.js';

const BATCH = 1_000;

export const expirer: BackgroundService = {
  name: 'expirer',
  intervalMs: (ctx) => ctx.settings.services.expireMs,
  async run(ctx) {
    let total = 0;
    for (;;) {
      const { now, nowIso } = instant(ctx);
      const expired = await ctx.driver.jobExpire({ now, nowIso, limit: BATCH });
      await ctx.hub.emit(expired.map((j) => expiredEvent(j, null, nowIso)));
      for (const job of expired) if (job.workflow_id) await ctx.onTerminal(job);
      total += expired.length;
      if (expired.length < BATCH) return total;
    }
  },
};
