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
 * a non-JSON content type is `400 invalid_request`; unparseable JSON is `400 invalid_payload`; a JSON value
 * that is not an object is `400 invalid_request`; more than `limit` bytes is `413 payload_too_large`. A missing
 * content type is read as JSON (curl-friendly).
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
  const contentType = requestHeader(c, 'content-type');
  if (contentType !== undefined && !ACCEPTED_REQUEST_MEDIA_TYPES.includes(mediaTypeOf(contentType))) {
    throw OjsError.invalidRequest(`Unsupported Content-Type '${contentType}': send application/openjobspec+json or application/json.`, {
      field: 'Content-Type',
      expected: ACCEPTED_REQUEST_MEDIA_TYPES.join(' or '),
      received: contentType,
      validation: 'content_type',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OjsError('invalid_payload', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  return parseInput(JsonObjectSchema, parsed, 'body');
}
