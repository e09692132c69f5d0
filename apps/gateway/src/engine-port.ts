/** The engine surface the gateway drives: the OJS operations plus the ojskit extensions it exposes over HTTP. */
import type { OjsApi, OjsErrorBody, OverdueJobsResponse } from '@ojskit/core';

/** One acknowledgement of a batched ACK (`POST /ojs/v1/workers/ack/batch`). */
export interface AckManyItem {
  job_id: string;
  result?: unknown;
  worker_id?: string;
}

/** Per-job outcome of a batched ACK, in request order. */
export type AckManyResult =
  | { ok: true; job_id: string; state: 'completed' }
  | { ok: false; job_id: string; error: OjsErrorBody };

export interface AckManyResponse {
  results: AckManyResult[];
}

/**
 * What the gateway needs from an engine. `Engine` from `@ojskit/core` satisfies it; declaring it here keeps
 * the routes testable against anything that speaks the same operations.
 */
export interface GatewayEngine extends OjsApi {
  /** Batched ACK: each item succeeds or fails on its own. */
  ackMany(request: unknown): Promise<AckManyResponse>;
  /** Stuck jobs: active past a deadline, or held by a silent worker. Without it the admin route is absent. */
  listOverdue?(query?: { limit?: number }): Promise<OverdueJobsResponse>;
  /** Starts background services (promote, rescue, expire, cron, prune). */
  start?(): unknown;
  /** Stops background services. */
  stop?(): void | Promise<void>;
  /** Stops services and closes the driver. */
  close?(): Promise<void>;
}
