/** One structured log line per request. */
import type { MiddlewareHandler } from 'hono';
import type { GatewayEnv } from '../http/env.js';

/** A request log line. */
export interface RequestLogLine {
  time: string;
  level: 'info' | 'warn' | 'error';
  msg: 'request';
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  error?: string;
}

/** Receives each request's log line. */
export type RequestLogger = (line: RequestLogLine) => void;

/** Writes each line as one JSON object on stdout. */
export const jsonStdoutLogger: RequestLogger = (line) => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

export function requestLog(logger: RequestLogger, onStatus?: (method: string, status: number) => void): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    onStatus?.(c.req.method, status);
    const failure = c.get('failure');
    logger({
      time: new Date().toISOString(),
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      msg: 'request',
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(failure !== undefined ? { error: failure instanceof Error ? failure.message : String(failure) } : {}),
    });
  };
}
