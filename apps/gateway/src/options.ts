/** Gateway configuration. */
import type { EngineOptions } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import type { GatewayEngine } from './engine-port.js';
import type { RequestLogger } from './middleware/request-log.js';
import type { EventStreamOptions } from './sse/event-stream.js';

interface CommonOptions {
  /** Bearer token(s) required on `/ojs/*` (manifest, health, docs stay open). Unset: no auth. */
  apiKey?: string | readonly string[];
  /** Allowed CORS origins: a list, or `'*'` for any; `false` (default) sends no CORS headers. */
  corsOrigin?: string | readonly string[] | false;
  /** Largest request body in bytes (default 8 MiB; a 1 000-job batch fits easily). */
  bodyLimit?: number;
  /** Serves `POST /ojs/v1/admin/reset` (wipes the driver). Off by default; for local harnesses and the playground. */
  enableReset?: boolean;
  /** One structured line per request; `false` for none. Default: JSON on stdout. */
  logger?: RequestLogger | false;
  /** Directory of a built single-page app (the playground) to serve at `/`, with `index.html` as fallback. */
  staticDir?: string;
  /** SSE tuning. */
  events?: Partial<EventStreamOptions>;
}

/** Serve an engine you own (you start and close it). Pass `driver` too if `enableReset` is on. */
export interface GatewayWithEngine extends CommonOptions {
  engine: GatewayEngine;
  driver?: Driver;
  backend?: never;
}

/** Serve a driver: the gateway builds the engine, starts its background services and closes it on `close()`. */
export interface GatewayWithBackend extends CommonOptions {
  backend: Driver;
  /** Engine settings besides the driver. */
  engineOptions?: Omit<EngineOptions, 'driver'>;
  /** Start the engine's background services (default true; tests driving a ManualClock pass false). */
  startServices?: boolean;
  engine?: never;
}

export type GatewayOptions = GatewayWithEngine | GatewayWithBackend;

export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;
