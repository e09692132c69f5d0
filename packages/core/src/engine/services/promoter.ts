/** Promoter: scheduled and retryable jobs whose time has come become available (or expire). */
import { instant } from '../context.js';
import { expiredEvent, jobEvent } from '../job-events.js';
import type { BackgroundService } from './service.js';

const BATCH = 1_000;

export const promoter: BackgroundService = {
  name: 'promoter',
  intervalMs: (ctx) => ctx.settings.services.promoteMs,
  async run(ctx) {
    let total = 0;
    for (;;) {
      const { now, nowIso } = instant(ctx);
      const { promoted, expired } = await ctx.driver.jobPromote({ now, nowIso, limit: BATCH });
      await ctx.hub.emit([
        ...promoted.map((p) => jobEvent('job.enqueued', { ...p, state: 'available' }, p.from ?? null, nowIso, { promoted: true })),
        ...expired.map((j) => expiredEvent(j, null, nowIso)),
      ]);
      for (const job of expired) if (job.workflow_id) await ctx.onTerminal(job);
      total += promoted.length + expired.length;
      if (promoted.length + expired.length < BATCH) return total;
    }
  },
};
