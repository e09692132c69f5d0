/** The exact media types and header values the protocol fixes, and the one way the gateway writes JSON. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Response media type: exactly this string, no `charset` parameter (clients compare it verbatim). */
export const OJS_MEDIA_TYPE = 'application/openjobspec+json';
/** Value of the `OJS-Version` response header. */
export const OJS_VERSION = '1.0';
/** Request media types a JSON body may carry (parameters ignored). */
export const ACCEPTED_REQUEST_MEDIA_TYPES: readonly string[] = [OJS_MEDIA_TYPE, 'application/json'];

/** Responses built by `ojsJson`: they already carry the protocol headers. */
const stamped = new WeakSet<Response>();

/** True when `response` came from `ojsJson` (the request-context middleware then has nothing to add). */
export function hasProtocolHeaders(response: Response): boolean {
  return stamped.has(response);
}

/**
 * Writes a JSON body with the OJS media type and the protocol headers. Hono's `c.json()` appends
 * `; charset=UTF-8`, which the protocol forbids; and a plain header record (rather than `c.header()`, which
 * builds a WHATWG `Headers`) lets the Node adapter write the response without converting anything.
 * @example return ojsJson(c, { job }, 201, { Location: `/ojs/v1/jobs/${job.id}` });
 */
export function ojsJson(c: Context, body: unknown, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  return ojsJsonText(c, JSON.stringify(body), status, headers);
}

/** As `ojsJson`, for a body already encoded as JSON text (a route that had to encode it itself). */
export function ojsJsonText(c: Context, text: string, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  const response = new Response(text, {
    status,
    headers: {
      'Content-Type': OJS_MEDIA_TYPE,
      'OJS-Version': OJS_VERSION,
      'X-Request-Id': (c.get('requestId' as never) as string | undefined) ?? '',
      ...headers,
    },
  });
  stamped.add(response);
  return response;
}
