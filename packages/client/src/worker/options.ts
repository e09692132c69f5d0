/** Worker options: their schema (checked once at construction) and defaults. */
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const WorkerOptionsSchema = z
  .object({
    /** Queues to fetch from, in priority order (default `['default']`). */
    queues: z.array(z.string().min(1)).min(1).default(['default']),
    /** Handlers running at once (default 10). */
    concurrency: positiveInt.default(10),
    /** Identifies this worker to the server (default `worker-<random>`). */
    workerId: z.string().min(1).optional(),
    /** Reservation asked for on fetch and renewed by heartbeats (default 30 000 ms). */
    visibilityTimeoutMs: positiveInt.default(30_000),
    /** Heartbeat period (default a third of the visibility timeout). */
    heartbeatIntervalMs: positiveInt.optional(),
    /**
     * Most jobs asked for per fetch (default: the concurrency; 1 turns fetch batching off). Capped at the
     * concurrency, or at the concurrency plus `prefetch` when `prefetch` is set: larger claims spread a
     * FETCH's fixed cost over more jobs during a backlog.
     */
    fetchBatchSize: positiveInt.optional(),
    /**
     * Jobs the worker may hold claimed beyond its free slots while the queue has a backlog (default: the
     * fetch batch size, eight batches while handlers finish faster than a fetch's round trip; 0 at
     * concurrency 1). The next fetch goes out while the current batch runs and acknowledges, so the backend
     * always has work and the process never waits a round trip for jobs. Held jobs start as slots free, are
     * kept alive by heartbeats, and are released to their queue on close. 0 turns prefetching off.
     */
    prefetch: z.number().int().min(0).optional(),
    /**
     * Batch completions (default `{ maxSize: 500, maxDelayMs: 5 }`): with no batch in flight, the ACKs of
     * one event-loop turn go out together at its end (no timer); while a batch is in flight they accumulate
     * and go out when it is answered, when `maxSize` are waiting, or after `maxDelayMs` (the longest an ACK
     * waits behind a slow batch); `maxInFlight` batches may be out at once (default 1: the batch grows with
     * the round trip). `false` sends each ACK on its own. 500 rather than 100: with deep prefetching a busy
     * worker finishes more than 100 jobs per round trip, and each ACK call has a fixed cost on the backend
     * (PostgreSQL: about 1.9M instructions a statement, 2026-11-27), so batches capped at 100 cost it
     * ~19k instructions per job against ~4k.
     */
    ackBatch: z
      .union([z.literal(false), z.object({ maxSize: positiveInt.default(500), maxDelayMs: z.number().min(0).default(5), maxInFlight: positiveInt.default(1) })])
      .default({ maxSize: 500, maxDelayMs: 5, maxInFlight: 1 }),
    /** Long-poll: how long the server may hold an empty fetch (`wait_ms`, default 1 000; 0 = never). */
    pollWaitMs: z.number().int().min(0).max(2_000).default(1_000),
    /** Sleep between empty fetches the server did not hold, doubling from `minMs` to `maxMs`. */
    idleBackoff: z
      .object({ minMs: positiveInt.default(20), maxMs: positiveInt.default(1_000) })
      .refine((b) => b.maxMs >= b.minMs, 'idleBackoff.maxMs must be ≥ minMs')
      .default({ minMs: 20, maxMs: 1_000 }),
    /** Subscribe to the transport's events to wake on new jobs and stop cancelled ones at once (default true). */
    listen: z.boolean().default(true),
    /** How long `close()` waits for running jobs before aborting and releasing them (default 10 000 ms). */
    shutdownTimeoutMs: z.number().int().min(0).default(10_000),
  })
  .strict();

/** Options of `new Worker(api, options)`. */
export type WorkerOptions = z.input<typeof WorkerOptionsSchema>;

/** Options with every default applied. */
export type ResolvedWorkerOptions = z.output<typeof WorkerOptionsSchema> & {
  workerId: string;
  heartbeatIntervalMs: number;
  fetchBatchSize: number;
  prefetch: number;
  /** No `prefetch` was given: the worker deepens it for short jobs (see prefetch-depth.ts). */
  adaptivePrefetch: boolean;
  /** Neither `prefetch` nor `fetchBatchSize` was given: fetches grow with a deep prefetch too. */
  adaptiveFetch: boolean;
};

/** Validates options (throws a `TypeError` naming the bad field) and fills in the defaults. */
export function resolveWorkerOptions(input: WorkerOptions = {}): ResolvedWorkerOptions {
  const parsed = WorkerOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TypeError(`Invalid worker option ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const options = parsed.data;
  const fetchBatchSize = Math.min(options.fetchBatchSize ?? options.concurrency, options.concurrency + (options.prefetch ?? 0));
  return {
    ...options,
    workerId: options.workerId ?? `worker-${globalThis.crypto.randomUUID().slice(0, 8)}`,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? Math.max(1, Math.floor(options.visibilityTimeoutMs / 3)),
    fetchBatchSize,
    prefetch: options.prefetch ?? (options.concurrency > 1 ? fetchBatchSize : 0),
    adaptivePrefetch: options.prefetch === undefined && options.concurrency > 1,
    adaptiveFetch: options.prefetch === undefined && options.fetchBatchSize === undefined && options.concurrency > 1,
  };
}
