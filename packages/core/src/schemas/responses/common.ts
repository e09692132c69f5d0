/**
 * Pieces several response bodies share: the two paginations, per-state counts, the error envelope. Each schema
 * carries its OpenAPI component name as zod metadata (`id`), which the gateway's document and spec/schemas read.
 */
import { z } from 'zod';
import { JOB_STATES, type JobState } from '../../lifecycle/states.js';
import { OjsErrorBodySchema } from '../../errors/ojs-error.js';

/** Offset pagination of the OJS lists (`limit`/`offset`, an opaque cursor when there is more). */
export const PaginationSchema = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), has_more: z.boolean(), next_cursor: z.string().optional() })
  .meta({ id: 'Pagination' });
export type Pagination = z.output<typeof PaginationSchema>;

/** Admin pagination: 1-based pages. */
export const AdminPaginationSchema = z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() }).meta({ id: 'AdminPagination' });
export type AdminPagination = z.output<typeof AdminPaginationSchema>;

/** One integer field per state, in lifecycle order: spread into the shapes that count jobs by state. */
export const STATE_COUNT_FIELDS = Object.fromEntries(JOB_STATES.map((state) => [state, z.number().int()])) as Record<JobState, z.ZodNumber>;

/** Jobs per state. */
export const StateCountsSchema = z.object(STATE_COUNT_FIELDS).meta({ id: 'StateCounts' });
export type StateCounts = z.output<typeof StateCountsSchema>;

/** Every error response: `{"error":{…}}`. */
export const ErrorEnvelopeSchema = z.object({ error: OjsErrorBodySchema }).meta({ id: 'ErrorEnvelope' });
export type ErrorEnvelope = z.output<typeof ErrorEnvelopeSchema>;

/** Queue states as the queue endpoints report them. */
export const QueueStatusSchema = z.enum(['active', 'paused']);
