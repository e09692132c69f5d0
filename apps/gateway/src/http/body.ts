/** Reading a request body as a JSON object: content type, emptiness, parse errors (the HTTP shape only). */
import { OjsError } from '@ojskit/core';
import { z } from 'zod';
import type { GatewayContext } from './env.js';
import { ACCEPTED_REQUEST_MEDIA_TYPES } from './media.js';
import { parseInput } from './validate.js';

/** A JSON object; everything inside it is the engine's to validate, so in-process and HTTP callers get the same errors. */
export const JsonObjectSchema = z.record(z.string(), z.unknown(), { error: 'a JSON object' });

function mediaTypeOf(header: string): string {
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * The body as a JSON object. An empty body is `{}` when optional and `400 invalid_request` when required;
 * a non-JSON content type is `400 invalid_request`; unparseable JSON is `400 invalid_payload`; a JSON value
 * that is not an object is `400 invalid_request`. A missing content type is read as JSON (curl-friendly).
 */
export async function readJsonObject(c: GatewayContext, required: boolean): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim().length === 0) {
    if (required) {
      throw OjsError.invalidRequest('Request body is required: send a JSON object.', { field: 'body', expected: 'a JSON object', validation: 'required' });
    }
    return {};
  }
  const contentType = c.req.header('content-type');
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
