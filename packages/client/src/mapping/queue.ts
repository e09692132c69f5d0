/** Queues, listings and dead-letter statistics, read from the wire. */
import type { DeadLetterStatsResponse, JobState, Pagination as WirePagination, QueueStatsResponse, QueueSummary } from '@ojskit/core';
import { JOB_STATES } from '@ojskit/core';
import { timeFromWire } from './time.js';

/** A queue in a listing. */
export interface Queue {
  name: string;
  paused: boolean;
  createdAt?: Date;
}

/** Current population of a queue, per state. */
export interface QueueStats {
  name: string;
  paused: boolean;
  /** available + scheduled + retryable + pending. */
  depth: number;
  counts: Record<JobState, number>;
  computedAt: Date;
}

/** Paging information of a listing. */
export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
  nextCursor?: string;
}

/** Dead-letter totals. */
export interface DeadLetterStats {
  total: number;
  byQueue: Record<string, number>;
  byErrorType: Record<string, number>;
  oldestAt: Date | null;
  newestAt: Date | null;
}

export function queueFromWire(wire: QueueSummary): Queue {
  const queue: Queue = { name: wire.name, paused: wire.paused ?? wire.status === 'paused' };
  const createdAt = timeFromWire(wire.created_at);
  if (createdAt) queue.createdAt = createdAt;
  return queue;
}

export function queueStatsFromWire(wire: QueueStatsResponse): QueueStats {
  // Servers put the counts in up to three places (http.md); read whichever is there.
  const source = (wire.queue ?? wire.stats ?? wire) as Partial<Record<JobState, number>>;
  const counts = Object.fromEntries(JOB_STATES.map((s) => [s, source[s] ?? (wire as Partial<Record<JobState, number>>)[s] ?? 0])) as Record<JobState, number>;
  return {
    name: wire.queue?.name ?? wire.name,
    paused: wire.queue?.paused ?? wire.paused,
    depth: wire.stats?.depth ?? counts.available + counts.scheduled + counts.retryable + counts.pending,
    counts,
    computedAt: timeFromWire(wire.computed_at) ?? new Date(),
  };
}

export function paginationFromWire(wire: WirePagination): Pagination {
  const page: Pagination = { total: wire.total, limit: wire.limit, offset: wire.offset, hasMore: wire.has_more };
  if (wire.next_cursor) page.nextCursor = wire.next_cursor;
  return page;
}

export function deadLetterStatsFromWire(wire: DeadLetterStatsResponse): DeadLetterStats {
  return {
    total: wire.total,
    byQueue: wire.by_queue,
    byErrorType: wire.by_error_type,
    oldestAt: timeFromWire(wire.oldest_at) ?? null,
    newestAt: timeFromWire(wire.newest_at) ?? null,
  };
}
