/** The engine surface the gateway drives: the OJS operations plus the ojskit extensions it exposes over HTTP. */
import type { AckManyResponse, AckManyResult, OjsApi, OverdueJobsResponse } from '@ojskit/core';
import type { AckManyItem } from '@ojskit/core/schemas';

/** A batched ACK's items and per-job outcomes: core's schemas declare them once for the engine, this route and the SDK. */
export type { AckManyItem, AckManyResponse, AckManyResult };

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
