/**
 * Reading the request through Node's `IncomingMessage` when the gateway runs on `@hono/node-server` (it passes
 * it as `c.env.incoming`). Hono's lightweight request turns into a full WHATWG `Request` (headers object,
 * abort signal, web stream) the moment its headers or body are touched, which costs more than the rest of a
 * request; reading the Node objects directly keeps the hot path cheap. Other runtimes and `app.request()`
 * take the standard path.
 */
import type { IncomingMessage } from 'node:http';
import type { GatewayContext } from './env.js';

function incomingOf(c: GatewayContext): IncomingMessage | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.headers ? env.incoming : undefined;
}

/** A request header (`name` lowercase). */
export function requestHeader(c: GatewayContext, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Thrown when the body exceeds the limit. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Request body exceeds the limit of ${limit} bytes.`);
  }
}

async function collect(chunks: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLargeError(limit);
    parts.push(chunk);
  }
  return Buffer.concat(parts, size).toString('utf8');
}

/** The body as text, refusing more than `limit` bytes (by `Content-Length` up front, else while reading). */
export async function readBodyText(c: GatewayContext, limit: number): Promise<string> {
  const declared = requestHeader(c, 'content-length');
  if (declared !== undefined && Number(declared) > limit) throw new BodyTooLargeError(limit);
  const incoming = incomingOf(c);
  if (incoming) return incoming.readableEnded ? '' : collect(incoming, limit);
  const body = c.req.raw.body;
  return body ? collect(body as unknown as AsyncIterable<Uint8Array>, limit) : '';
}
