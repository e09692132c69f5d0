/** The exact media types and header values the protocol fixes, and the one way the gateway writes JSON. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Response media type: exactly this string, no `charset` parameter (clients compare it verbatim). */
export const OJS_MEDIA_TYPE = 'application/openjobspec+json';
/** Value of the `OJS-Version` response header. */
export const OJS_VERSION = '1.0';
/** Request media types a JSON body may carry (parameters ignored). */
export const ACCEPTED_REQUEST_MEDIA_TYPES: readonly string[] = [OJS_MEDIA_TYPE, 'application/json'];

/**
 * Writes a JSON body with the OJS media type. Hono's `c.json()` appends `; charset=UTF-8`, which the
 * protocol forbids, so every JSON response of the gateway goes through here.
 * @example return ojsJson(c, { job }, 201, { Location: `/ojs/v1/jobs/${job.id}` });
 */
export function ojsJson(c: Context, body: unknown, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  return c.body(JSON.stringify(body), status, { 'Content-Type': OJS_MEDIA_TYPE, ...headers });
}
