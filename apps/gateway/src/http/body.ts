/** Reading a request body as a JSON object: content type, emptiness, parse errors (the HTTP shape only). */
import { OjsError } from '@ojskit/core';
import { z } from 'zod';
import type { GatewayContext } from './env.js';
import { ACCEPTED_REQUEST_MEDIA_TYPES } from './media.js';
import { parseInput } from './validate.js';
import { BodyTooLargeError, readBodyText, requestHeader } from './native.js';

/** A JSON object; everything inside it is the engine's to validate, so in-process and HTTP callers get the same errors. */
export const JsonObjectSchema = z.record(z.string(), z.unknown(), { error: 'a JSON object' });

function mediaTypeOf(header: string): string {
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The body as a JSON object. An empty body is `{}` when optional and `400 invalid_request` when required;
 * a body without a JSON content type (missing included) is `415` (code `invalid_request`); unparseable JSON
 * is `400 invalid_payload`; a JSON value that is not an object is `400 invalid_request`; more than `limit`
 * bytes is `413 payload_too_large`.
 *
 * Why a missing content type is refused: a browser sends a cross-origin POST without a preflight when its
 * type is absent or `text/plain`, so reading such a body as JSON let any web page enqueue jobs or pause
 * queues through a visitor's browser, whatever the CORS origins.
 */
export async function readJsonObject(c: GatewayContext, required: boolean, limit: number): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBodyText(c, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new OjsError('payload_too_large', error.message, { details: { limit_bytes: limit } });
    }
    throw error;
  }
  if (text.trim().length === 0) {
    if (required) {
      throw OjsError.invalidRequest('Request body is required: send a JSON object.', { field: 'body', expected: 'a JSON object', validation: 'required' });
    }
    return {};
  }
  requireJsonMediaType(c);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OjsError('invalid_payload', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  return parseInput(JsonObjectSchema, parsed, 'body');
}

/**
 * `415` (code `invalid_request`) unless the request says its body is JSON. Routes that read no body call it
 * when a body came anyway: a cross-origin `text/plain` POST must not act, whatever it carries.
 */
export function requireJsonMediaType(c: GatewayContext): void {
  const contentType = requestHeader(c, 'content-type');
  if (contentType !== undefined && ACCEPTED_REQUEST_MEDIA_TYPES.includes(mediaTypeOf(contentType))) return;
  const what = contentType === undefined ? 'A body without Content-Type' : `Unsupported Content-Type '${contentType}'`;
  throw new OjsError('invalid_request', `${what}: send Content-Type: application/json (or application/openjobspec+json).`, {
    status: 415,
    details: {
      field: 'Content-Type',
      expected: ACCEPTED_REQUEST_MEDIA_TYPES.join(' or '),
      ...(contentType === undefined ? {} : { received: contentType }),
      validation: 'content_type',
    },
    hint: 'Send the body with Content-Type: application/json.',
  });
}

/** True when the request carries a body (a non-zero `Content-Length`, or a chunked one). */
export function hasRequestBody(c: GatewayContext): boolean {
  const length = requestHeader(c, 'content-length');
  if (length !== undefined) return Number(length) > 0;
  if (requestHeader(c, 'transfer-encoding') !== undefined) return true;
  // `app.request()` and other runtimes: a WHATWG request knows whether it has a body.
  return (c.env as { incoming?: unknown } | undefined)?.incoming === undefined && c.req.raw.body !== null;
}
