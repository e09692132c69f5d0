/** Naming a schema as an OpenAPI component, whichever module created it. */
import { z } from '@hono/zod-openapi';

type OpenApiMethod = (this: z.ZodType, refId: string, metadata?: Record<string, unknown>) => z.ZodType;

/**
 * `schema.openapi(refId)` for schemas created outside this package. Zod 4 copies prototype extensions onto
 * each schema when it is constructed, so schemas core built before `@hono/zod-openapi` was first imported
 * lack the method; calling the prototype function works for both.
 */
export function named<S extends z.ZodType>(schema: S, refId: string, metadata?: Record<string, unknown>): S {
  const openapi = (z.ZodType.prototype as unknown as { openapi: OpenApiMethod }).openapi;
  return openapi.call(schema, refId, metadata) as S;
}
