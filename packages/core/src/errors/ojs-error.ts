/** `OjsError`: the one error type the engine throws, convertible to and from the OJS error envelope. */
import { docsUrl, errorInfo, type OjsErrorCode } from './catalog.js';

/** The `error` object of the OJS error envelope. */
export interface OjsErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  request_id?: string;
  hint?: string;
  docs_url?: string;
  type?: string;
}

/**
 * A protocol error with a catalog code. The gateway turns it into `{"error":{…}}` with the matching status;
 * the HTTP transport turns such a body back into an `OjsError`, so callers see the same error either way.
 * @example throw OjsError.notFound('job', id)
 */
export class OjsError extends Error {
  override readonly name = 'OjsError';
  readonly code: OjsErrorCode | (string & {});
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** Category; `validation_error` on 422 semantic validation errors. */
  readonly type: string | undefined;

  constructor(
    code: OjsErrorCode | (string & {}),
    message: string,
    options: { details?: Record<string, unknown>; status?: number; retryable?: boolean; type?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const info = errorInfo(code);
    this.code = code;
    this.status = options.status ?? info.status;
    this.retryable = options.retryable ?? info.retryable;
    this.details = options.details;
    this.type = options.type;
  }

  /** The envelope's `error` object. */
  toBody(requestId?: string): OjsErrorBody {
    const hint = errorInfo(this.code).hint;
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details ? { details: this.details } : {}),
      ...(this.type ? { type: this.type } : {}),
      ...(requestId ? { request_id: requestId } : {}),
      ...(hint ? { hint } : {}),
      docs_url: docsUrl(this.code),
    };
  }

  /** Rebuilds an error from an envelope body received over the wire. */
  static fromBody(body: OjsErrorBody, status?: number): OjsError {
    return new OjsError(body.code, body.message, {
      ...(body.details ? { details: body.details } : {}),
      ...(status !== undefined ? { status } : {}),
      retryable: body.retryable,
      ...(body.type ? { type: body.type } : {}),
    });
  }

  static invalidRequest(message: string, details?: Record<string, unknown>): OjsError {
    return new OjsError('invalid_request', message, details ? { details } : {});
  }

  static validation(message: string, details?: Record<string, unknown>): OjsError {
    return new OjsError('validation_error', message, { ...(details ? { details } : {}), type: 'validation_error' });
  }

  static notFound(resourceType: string, id: string): OjsError {
    const label = resourceType.charAt(0).toUpperCase() + resourceType.slice(1);
    return new OjsError('not_found', `${label} '${id}' not found.`, {
      details: { resource_type: resourceType, resource_id: id },
    });
  }

  static conflict(message: string, details?: Record<string, unknown>): OjsError {
    return new OjsError('conflict', message, details ? { details } : {});
  }

  static duplicate(message: string, details?: Record<string, unknown>): OjsError {
    return new OjsError('duplicate', message, details ? { details } : {});
  }

  static unsupported(message: string): OjsError {
    return new OjsError('unsupported', message);
  }

  static backend(message: string, cause?: unknown): OjsError {
    return new OjsError('backend_error', message, { cause });
  }
}

/** True for an `OjsError` (also across module copies, by shape). */
export function isOjsError(value: unknown): value is OjsError {
  return value instanceof OjsError || (value instanceof Error && value.name === 'OjsError' && 'code' in value && 'status' in value);
}
