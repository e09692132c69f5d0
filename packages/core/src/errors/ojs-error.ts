/** `OjsError`: the one error type the engine throws, convertible to and from the OJS error envelope. */
import { z } from 'zod';
import { docsUrl, errorInfo, type OjsErrorCode } from './catalog.js';

/** Longest message an error carries; the rest is cut (a message may quote what the client sent). */
const MAX_MESSAGE_LENGTH = 1_000;
/** Longest string a `details` value keeps. */
const MAX_DETAIL_LENGTH = 200;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * `details` with long strings cut, one level deep, and a received object or array named rather than echoed:
 * an error must never send a huge invalid value back.
 */
function clipDetails(details: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in details) {
    const value = details[key];
    if (typeof value === 'string' && value.length > MAX_DETAIL_LENGTH) (out ??= { ...details })[key] = clip(value, MAX_DETAIL_LENGTH);
    // `received` echoes client input: a container is named, never copied back.
    else if (key === 'received' && typeof value === 'object' && value !== null) (out ??= { ...details })[key] = Array.isArray(value) ? 'array' : 'object';
  }
  return out ?? details;
}

/** The `error` object of the OJS error envelope: the one declaration its type and its documentation come from. */
export const OjsErrorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
  request_id: z.string().optional(),
  hint: z.string().optional(),
  docs_url: z.string().optional(),
  type: z.string().optional(),
});

/** The `error` object of the OJS error envelope. */
export type OjsErrorBody = z.infer<typeof OjsErrorBodySchema>;

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
    options: { details?: Record<string, unknown>; status?: number; retryable?: boolean; type?: string; cause?: unknown; hint?: string } = {},
  ) {
    super(clip(message, MAX_MESSAGE_LENGTH), options.cause === undefined ? undefined : { cause: options.cause });
    const info = errorInfo(code);
    this.code = code;
    this.status = options.status ?? info.status;
    this.retryable = options.retryable ?? info.retryable;
    this.details = options.details === undefined ? undefined : clipDetails(options.details);
    this.type = options.type;
    if (options.hint !== undefined) this.hint = options.hint;
  }

  /** A remedy for this error when the catalog's one-line hint for its code does not fit (a 405 has no field to fix). */
  readonly hint?: string;

  /** The envelope's `error` object. */
  toBody(requestId?: string): OjsErrorBody {
    const hint = this.hint ?? errorInfo(this.code).hint;
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
