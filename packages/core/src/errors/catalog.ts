/** The OJS error code catalog: each code's HTTP status, retryability and a one-line remedy. */

/** One catalog entry. */
export interface ErrorCodeInfo {
  readonly status: number;
  readonly retryable: boolean;
  readonly hint: string;
}

/** Every error code ojskit puts on the wire, keyed by code. */
export const ERROR_CATALOG = {
  invalid_payload: { status: 400, retryable: false, hint: 'Send a body that is valid JSON.' },
  invalid_request: { status: 400, retryable: false, hint: 'Fix the field named in details.field and retry.' },
  schema_validation: { status: 400, retryable: false, hint: 'Make args conform to the registered schema.' },
  validation_error: { status: 422, retryable: false, hint: 'Fix the semantically invalid field named in the message.' },
  unsupported: { status: 422, retryable: false, hint: 'Check the manifest for what this server supports.' },
  queue_paused: { status: 422, retryable: true, hint: 'Resume the queue, then retry.' },
  not_found: { status: 404, retryable: false, hint: 'Check the id or name.' },
  conflict: { status: 409, retryable: false, hint: 'Read the resource again: its current state does not allow this operation.' },
  duplicate: { status: 409, retryable: false, hint: 'A job with this id or unique key already exists: see details.existing_job_id.' },
  payload_too_large: { status: 413, retryable: false, hint: 'Send a smaller body.' },
  rate_limited: { status: 429, retryable: true, hint: 'Wait for Retry-After seconds, then retry.' },
  // The backpressure extension's own spelling (upper case), kept as the extension writes it.
  QUEUE_FULL: { status: 429, retryable: true, hint: 'The queue is at its max_depth: wait Retry-After seconds, then retry.' },
  unauthenticated: { status: 401, retryable: false, hint: 'Send Authorization: Bearer <token>.' },
  permission_denied: { status: 403, retryable: false, hint: 'Use credentials allowed to do this.' },
  backend_error: { status: 500, retryable: true, hint: 'The storage backend failed; retry later.' },
  backend_unavailable: { status: 503, retryable: true, hint: 'The storage backend is unreachable; retry later.' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code from the catalog. */
export type OjsErrorCode = keyof typeof ERROR_CATALOG;

/** Documentation page for a code, as the protocol suggests. */
export function docsUrl(code: string): string {
  return `https://openjobspec.org/errors/${code}`;
}

/** Looks a code up; unknown codes are treated as non-retryable server errors. */
export function errorInfo(code: string): ErrorCodeInfo {
  return (ERROR_CATALOG as Record<string, ErrorCodeInfo>)[code] ?? { status: 500, retryable: false, hint: '' };
}
