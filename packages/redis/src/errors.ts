/** Maps ioredis failures to OJS errors: an unreachable server is `backend_unavailable` (503, retryable). */
import { OjsError } from '@ojskit/core';

const CONNECTION_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Reached the max retries per request limit',
  'connect ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'Command timed out',
];

/** True when the error means the server could not be reached or the connection dropped mid-command. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return CONNECTION_MESSAGES.some((m) => error.message.includes(m)) || (error as { code?: string }).code === 'ECONNREFUSED';
}

/**
 * Wraps an ioredis error. A dropped connection becomes `backend_unavailable`: the command may or may not have
 * run (at-least-once; the caller retries, and every transition is a guarded compare-and-set). Anything else
 * (a Lua error) is a `backend_error`.
 */
export function toDriverError(error: unknown, operation: string): OjsError {
  if (error instanceof OjsError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isConnectionError(error)) {
    return new OjsError('backend_unavailable', `Redis is unreachable (${operation}): ${message}`, { cause: error });
  }
  return new OjsError('backend_error', `Redis ${operation} failed: ${message}`, { cause: error });
}
