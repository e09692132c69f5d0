/** The queue's rate limits as an operator reads them (`GET /ojs/v1/admin/queues/:name/rate-limits`). */
import type { QueueRateLimitsResponse } from '../../api/admin-responses.js';
import { OjsError } from '../../errors/ojs-error.js';
import { toTimestamp } from '../../formats/timestamps.js';
import { checkQueue } from '../../schemas/fields.js';
import { instant, type EngineContext } from '../context.js';

export async function getQueueRateLimits(ctx: EngineContext, name: string): Promise<QueueRateLimitsResponse> {
  checkQueue(name, 'name');
  const read = ctx.driver.rateLimitState;
  if (ctx.driver.capabilities.rateLimiting !== true || read === undefined) {
    throw OjsError.unsupported(`Rate limiting is not supported by the ${ctx.driver.name} backend.`);
  }
  const [config, state] = await Promise.all([ctx.driver.queueConfigGet(name), read.call(ctx.driver, { queue: name, now: instant(ctx).now })]);
  const next = state.lastClaimAt !== null && state.intervalMs !== null ? state.lastClaimAt + state.intervalMs : null;
  const concurrencies = [config?.rate_limit?.concurrency, config?.concurrency].filter((n): n is number => n !== undefined);
  return {
    queue: name,
    now: toTimestamp(state.now),
    queue_limit: {
      max_per_second: config?.rate_limit?.max_per_second ?? null,
      concurrency: concurrencies.length > 0 ? Math.min(...concurrencies) : null,
    },
    window: {
      last_claim_at: state.lastClaimAt === null ? null : toTimestamp(state.lastClaimAt),
      interval_ms: state.intervalMs,
      next_allowed_at: next === null ? null : toTimestamp(Math.max(next, state.now)),
    },
    active: state.queueActive,
    keys: state.keys,
  };
}
