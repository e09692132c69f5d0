/** Response bodies of the queue operations: list, stats, pause and resume. */
import { z } from 'zod';
import { PaginationSchema, QueueStatusSchema, STATE_COUNT_FIELDS } from './common.js';

export const QueueSummarySchema = z.object({ name: z.string(), status: QueueStatusSchema, paused: z.boolean(), created_at: z.string().optional() });
export type QueueSummary = z.output<typeof QueueSummarySchema>;

export const QueueListResponseSchema = z.object({ queues: z.array(QueueSummarySchema), pagination: PaginationSchema }).meta({ id: 'QueueListResponse' });
export type QueueListResponse = z.output<typeof QueueListResponseSchema>;

/** Counts by state under `queue` and `stats` and at the top level, as the SDKs of the protocol read them. */
export const QueueStatsResponseSchema = z
  .object({
    queue: z.object({ name: z.string(), paused: z.boolean(), ...STATE_COUNT_FIELDS }),
    stats: z.object({ queue: z.string(), depth: z.number().int(), ...STATE_COUNT_FIELDS }),
    name: z.string(),
    paused: z.boolean(),
    computed_at: z.string(),
    ...STATE_COUNT_FIELDS,
  })
  .meta({ id: 'QueueStatsResponse' });
export type QueueStatsResponse = z.output<typeof QueueStatsResponseSchema>;

export const QueuePauseResponseSchema = z
  .object({
    queue: z.object({ name: z.string(), paused: z.boolean(), status: QueueStatusSchema, paused_at: z.string().optional(), resumed_at: z.string().optional() }),
  })
  .meta({ id: 'QueuePauseResponse' });
export type QueuePauseResponse = z.output<typeof QueuePauseResponseSchema>;
