/** Zod-validated HTTP inputs (path, query, body shape), failing with `400 invalid_request` in the OJS shape. */
import type { z } from 'zod';
import { OjsError } from '@ojskit/core';

/** The first zod issue as the OJS `invalid_request` error (`details: {field, expected, received?, validation}`). */
export function zodToOjsError(error: z.ZodError, where: string): OjsError {
  const issue = error.issues[0];
  if (!issue) return OjsError.invalidRequest(`Invalid ${where}.`);
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : where;
  const input = (issue as { input?: unknown }).input;
  return OjsError.invalidRequest(`Invalid '${field}': expected ${issue.message}.`, {
    field,
    expected: issue.message,
    ...(input !== undefined && typeof input !== 'object' ? { received: input } : {}),
    validation: issue.code,
    location: where,
  });
}

/** Parses `value` with `schema` or throws the OJS error for the first issue. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw zodToOjsError(result.error, where);
  return result.data;
}
