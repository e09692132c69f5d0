/** Response body of the event poll (`GET /ojs/v1/events`). */
import { z } from 'zod';
import { OjsEventSchema } from '../../events/event.js';

export const EventPollResponseSchema = z
  .object({
    events: z.array(OjsEventSchema),
    cursor: z.string().nullable(),
    has_more: z.boolean(),
    cursor_expired: z
      .literal(true)
      .optional()
      .describe(
        'Present when `after` named an event this server no longer keeps (or never saw): `events` then start from the oldest kept, and events in between may be missing.',
      ),
  })
  .meta({ id: 'EventPollResponse' });
export type EventPollResponse = z.output<typeof EventPollResponseSchema>;
