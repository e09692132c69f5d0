/** Postgres failures as OJS errors: unreachable → `backend_unavailable` (503, retryable), else `backend_error`. */
import { isOjsError, OjsError } from '@ojskit/core';

/** SQLSTATE classes and Node error codes that mean "the database is not reachable right now". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/** The SQLSTATE (or Node error code) of an error thrown by pg. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the connection or the server went away (retry later, maybe elsewhere). */
export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_NODE_CODES.has(code))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(message);
}

/** True for a unique violation on the jobs primary key (a duplicate job id). */
export function isDuplicateJobId(error: unknown): boolean {
  const pgError = (error instanceof Error && error.cause !== undefined ? error.cause : error) as { constraint?: string };
  return errorCode(pgError) === '23505' && pgError.constraint === 'jobs_pkey';
}

/**
 * Wraps a pg failure of `operation` as an OjsError; OjsErrors pass through unchanged.
 * @example throw toOjsError(error, 'jobClaim')
 */
export function toOjsError(error: unknown, operation: string): OjsError {
  if (isOjsError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (isConnectionError(error)) {
    return new OjsError('backend_unavailable', `PostgreSQL is unavailable (${operation}): ${detail}`, { cause: error });
  }
  return new OjsError('backend_error', `PostgreSQL failed (${operation}): ${detail}`, { cause: error });
}
