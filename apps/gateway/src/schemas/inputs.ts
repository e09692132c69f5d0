/**
 * Zod schemas of the gateway's HTTP inputs: path parameters and query strings. They are both the
 * validators the routes run and the source of the OpenAPI document. Each carries its failure text as an
 * expectation ("a lowercase UUIDv7"), which becomes `details.expected` of the `400 invalid_request`.
 */
import { z } from '@hono/zod-openapi';
import { JOB_STATES } from '@ojskit/core';
import { UUIDV7_PATTERN } from '@ojskit/core/formats';
import { MAX_CRON_NAME_LENGTH, MAX_QUEUE_LENGTH, QUEUE_NAME_PATTERN } from '@ojskit/core/schemas';

const UUID_EXPECTATION = 'a lowercase UUIDv7';
const QUEUE_EXPECTATION = `a queue name matching ${QUEUE_NAME_PATTERN.source} (at most ${MAX_QUEUE_LENGTH} characters)`;
const CRON_EXPECTATION = `a cron name matching ${QUEUE_NAME_PATTERN.source} (at most ${MAX_CRON_NAME_LENGTH} characters)`;

/**
 * Ids are only required to be present: a string that is not a UUIDv7 names nothing, and the engine answers
 * `404 not_found` for it (the same answer an in-process caller gets), so the gateway does not pre-empt it.
 */
const uuid = (name: string, description: string) =>
  z
    .string({ error: UUID_EXPECTATION })
    .min(1, { error: UUID_EXPECTATION })
    .openapi({ param: { name, in: 'path' }, description, format: 'uuid', pattern: UUIDV7_PATTERN.source, example: '019a0c6e-5b1e-7c3a-9f7e-2d4b8c6a1e00' });

export const JobIdParams = z.object({ id: uuid('id', 'Job id (UUIDv7).') });
export const WorkflowIdParams = z.object({ id: uuid('id', 'Workflow id (UUIDv7).') });

/** The job a body-addressed operation targets (`POST /workers/progress`). */
export const JobIdField = z.object({
  job_id: z.string({ error: 'a job id (string)' }),
});

export const QueueNameParams = z.object({
  name: z
    .string({ error: QUEUE_EXPECTATION })
    .max(MAX_QUEUE_LENGTH, { error: QUEUE_EXPECTATION })
    .regex(QUEUE_NAME_PATTERN, { error: QUEUE_EXPECTATION })
    .openapi({ param: { name: 'name', in: 'path' }, description: 'Queue name.', example: 'default' }),
});

export const CronNameParams = z.object({
  name: z
    .string({ error: CRON_EXPECTATION })
    .max(MAX_CRON_NAME_LENGTH, { error: CRON_EXPECTATION })
    .regex(QUEUE_NAME_PATTERN, { error: CRON_EXPECTATION })
    .openapi({ param: { name: 'name', in: 'path' }, description: 'Cron registration name.', example: 'nightly-report' }),
});

export const WorkerIdParams = z.object({
  id: z
    .string()
    .min(1, { error: 'a worker id' })
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Worker id.' }),
});

/** A query integer: digits only, then range-checked. */
const queryInt = (expectation: string, min: number) =>
  z
    .string({ error: expectation })
    .regex(/^\d+$/, { error: expectation })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: expectation }));

/** Comma-separated list (`types=a,b`); repeated parameters are joined by the route. */
const csv = (description: string) =>
  z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .openapi({ type: 'string', description });

const booleanQuery = (expectation: string) => z.enum(['true', 'false'], { error: expectation }).transform((text) => text === 'true');

export const ListQuery = z.object({
  limit: queryInt('a positive integer', 1).optional().openapi({ type: 'integer', description: 'Page size (default 50).' }),
  offset: queryInt('a non-negative integer', 0).optional().openapi({ type: 'integer', description: 'Items to skip (default 0).' }),
  cursor: z.string().optional().openapi({ description: 'Opaque cursor from `pagination.next_cursor`.' }),
});

export const DeadLetterListQuery = ListQuery.extend({
  queue: z.string().optional().openapi({ description: 'Only jobs of this queue.' }),
  type: z.string().optional().openapi({ description: 'Only jobs of this type.' }),
});

export const CronListQuery = ListQuery.extend({
  enabled: booleanQuery("'true' or 'false'").optional().openapi({ type: 'boolean', description: 'Only enabled (or disabled) crons.' }),
});

const EventFilterQuery = z.object({
  types: csv('Event types, comma-separated; an entry ending in `*` matches by prefix (`job.*`).').optional(),
  queues: csv('Queues, comma-separated.').optional(),
  job_types: csv('Job types, comma-separated.').optional(),
  job_id: z.string().optional().openapi({ description: 'Only events of this job.' }),
});

export const EventPollQuery = EventFilterQuery.extend({
  after: z.string().optional().openapi({ description: 'Return events after this event id.' }),
  limit: queryInt('a positive integer', 1).optional().openapi({ type: 'integer', description: 'Most events returned (default 100, max 1000).' }),
});

export const EventStreamQuery = EventFilterQuery.extend({
  last_event_id: z.string().optional().openapi({ description: 'Resume after this event id (same as the `Last-Event-ID` header).' }),
});

export const AdminPageQuery = z.object({
  page: queryInt('a positive integer', 1).optional().openapi({ type: 'integer', description: 'Page, 1-based (default 1).' }),
  per_page: queryInt('a positive integer', 1).optional().openapi({ type: 'integer', description: 'Items per page (default 25, max 100).' }),
});

export const AdminOverdueQuery = z.object({
  limit: queryInt('a positive integer', 1).optional().openapi({ type: 'integer', description: 'Most jobs listed (default 100, max 1000).' }),
});

export const AdminDeadLetterQuery = AdminPageQuery.extend({
  queue: z.string().optional(),
  type: z.string().optional(),
});

export const JobStateQuery = z.enum(JOB_STATES);
