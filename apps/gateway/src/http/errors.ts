/** Turning anything thrown inside a request into the OJS error envelope, never a bare 500. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { OjsError, isOjsError } from '@ojskit/core';
import { ojsJson } from './media.js';
import { BodyTooLargeError } from './native.js';

/** The request id of the current request (set by the request-context middleware). */
export function requestIdOf(c: Context): string | undefined {
  return c.get('requestId' as never) as string | undefined;
}

/**
 * Maps any thrown value to an `OjsError`: protocol errors pass through, Hono's own HTTP exceptions keep
 * their status, everything else is a storage/transport failure (`500 backend_error`, retryable) whose
 * message hides internals.
 */
export function toOjsError(error: unknown): OjsError {
  if (isOjsError(error)) return error;
  if (error instanceof BodyTooLargeError) return new OjsError('payload_too_large', error.message, { details: { limit_bytes: error.limit } });
  if (error instanceof HTTPException) {
    if (error.status === 413) return new OjsError('payload_too_large', 'Request body exceeds the size limit.');
    if (error.status === 401) return new OjsError('unauthenticated', error.message || 'Authentication required.');
    if (error.status < 500) return new OjsError('invalid_request', error.message || 'Invalid request.', { status: error.status });
  }
  if (error instanceof SyntaxError) return new OjsError('invalid_payload', 'Request body is not valid JSON.');
  return OjsError.backend('The backend failed to process the request.', error);
}

/** Writes the error envelope with the error's status (and `Retry-After` on retryable 429/503). */
export function errorResponse(c: Context, error: OjsError, headers?: Record<string, string>): Response {
  const status = (error.status >= 400 && error.status <= 599 ? error.status : 500) as ContentfulStatusCode;
  const extra: Record<string, string> = { ...headers };
  if (error.code === 'QUEUE_FULL') Object.assign(extra, queueFullHeaders(error));
  if (error.retryable && (status === 429 || status === 503) && !extra['Retry-After']) extra['Retry-After'] = '1';
  // The rest of an oversized body is still on the socket: ask the client not to reuse the connection.
  if (error.code === 'payload_too_large') extra['Connection'] = 'close';
  return ojsJson(c, { error: error.toBody(requestIdOf(c)) }, status, extra);
}

/** Backpressure extension: a refused enqueue tells when to retry and how full the queue is. */
function queueFullHeaders(error: OjsError): Record<string, string> {
  const details = error.details ?? {};
  const headers: Record<string, string> = {};
  if (typeof details.retry_after_seconds === 'number') headers['Retry-After'] = String(details.retry_after_seconds);
  if (typeof details.depth === 'number') headers['X-OJS-Queue-Depth'] = String(details.depth);
  if (typeof details.bound === 'number') headers['X-OJS-Queue-Bound'] = String(details.bound);
  return headers;
}
