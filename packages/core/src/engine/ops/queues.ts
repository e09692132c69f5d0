/** Queue operations: list, stats, pause and resume (persisted by the driver). */
import type { ListQuery } from '../../api/ojs-api.js';
import type { QueueListResponse, QueuePauseResponse, QueueStatsResponse, QueueSummary } from '../../api/responses.js';
import { makeEvent } from '../../events/event.js';
import { checkQueue } from '../../schemas/fields.js';
import { instant, type EngineContext } from '../context.js';
import { page } from '../pagination.js';

const DEFAULT_QUEUE = 'default';

export async function listQueues(ctx: EngineContext, query?: ListQuery): Promise<QueueListResponse> {
  const records = await ctx.driver.queueList();
  const queues: QueueSummary[] = records.map((q) => ({ name: q.name, status: q.paused ? 'paused' : 'active', paused: q.paused, created_at: q.created_at }));
  if (!queues.some((q) => q.name === DEFAULT_QUEUE)) queues.unshift({ name: DEFAULT_QUEUE, status: 'active', paused: false });
  queues.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const { items, pagination } = page(queues, query);
  return { queues: items, pagination };
}

export async function queueStats(ctx: EngineContext, name: string): Promise<QueueStatsResponse> {
  checkQueue(name, 'name');
  const [counts, record] = await Promise.all([ctx.driver.jobCounts({ queue: name }), ctx.driver.queueGet(name)]);
  const paused = record?.paused ?? false;
  const depth = counts.available + counts.scheduled + counts.retryable + counts.pending;
  return {
    queue: { name, paused, ...counts },
    stats: { queue: name, depth, ...counts },
    name,
    paused,
    ...counts,
    computed_at: instant(ctx).nowIso,
  };
}

async function setPaused(ctx: EngineContext, name: string, paused: boolean): Promise<QueuePauseResponse> {
  checkQueue(name, 'name');
  const { nowIso } = instant(ctx);
  const record = await ctx.driver.queueSetPaused({ name, paused, nowIso });
  await ctx.hub.emit([makeEvent(paused ? 'queue.paused' : 'queue.resumed', name, { queue: name }, nowIso)]);
  return {
    queue: {
      name,
      paused,
      status: paused ? 'paused' : 'active',
      ...(paused ? { paused_at: record.paused_at ?? nowIso } : { resumed_at: record.resumed_at ?? nowIso }),
    },
  };
}

export const pauseQueue = (ctx: EngineContext, name: string) => setPaused(ctx, name, true);
export const resumeQueue = (ctx: EngineContext, name: string) => setPaused(ctx, name, false);
