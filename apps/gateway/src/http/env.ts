/** Per-request variables the gateway's middleware share through Hono's context. */
import type { Context } from 'hono';

export interface GatewayEnv {
  Variables: {
    /** Echoed from `X-Request-Id`, or `req_<uuidv7>`. */
    requestId: string;
    /** What a 5xx response was caused by, for the request log. */
    failure?: unknown;
  };
}

export type GatewayContext = Context<GatewayEnv>;
