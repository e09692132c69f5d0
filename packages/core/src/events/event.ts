/** OJS events: the CloudEvents-shaped record of every transition, published by the engine. */
import { z } from 'zod';
import { newEventId } from '../formats/ids.js';
import { STATE_ROLES } from '../lifecycle/sets.js';
import type { JobState } from '../lifecycle/states.js';

/** Every event type the engine emits. */
export const EVENT_TYPES = [
  'job.enqueued',
  'job.scheduled',
  'job.started',
  'job.completed',
  'job.failed',
  'job.retrying',
  'job.discarded',
  'job.cancelled',
  'job.expired',
  'job.heartbeat',
  'job.progress',
  'job.pending',
  'job.activated',
  'job.requeued',
  'queue.paused',
  'queue.resumed',
  'cron.triggered',
  'cron.skipped',
  'workflow.started',
  'workflow.step_completed',
  'workflow.completed',
  'workflow.failed',
  'workflow.cancelled',
  'dead_letter.added',
  'dead_letter.retried',
  'dead_letter.deleted',
  'backpressure.rejected',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The job event types that each stand for one transition: counting these counts every transition once. The
 * others repeat one of them (`job.retrying` and `job.discarded` follow `job.failed`, `dead_letter.*` follows
 * the move it names) or change no state (`job.heartbeat`, `job.progress`).
 */
export const TRANSITION_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'job.enqueued',
  'job.scheduled',
  'job.pending',
  'job.started',
  'job.completed',
  'job.failed',
  'job.requeued',
  'job.cancelled',
  'job.expired',
]);

/** Data every job event carries; `from` is the state before the transition (ojskit extension, for animation). */
export interface JobEventData {
  job_id: string;
  job_type: string;
  queue: string;
  state: JobState;
  from?: JobState | null;
  attempt?: number;
  /** On `job.started`: when the job last became available (its wait is `time` − this). ojskit extension. */
  enqueued_at?: string;
  /** On events leaving `active`: when that attempt started (its run time is `time` − this). ojskit extension. */
  started_at?: string;
  [field: string]: unknown;
}

/** An event, shaped as the protocol's polling and SSE payloads. */
/** An event as served (CloudEvents 1.0, JSON data); also its wire schema (the OpenAPI `Event`). */
export const OjsEventSchema = z
  .object({
    specversion: z.literal('1.0'),
    id: z.string(),
    type: z.enum(EVENT_TYPES),
    source: z.string(),
    time: z.string(),
    subject: z.string(),
    datacontenttype: z.literal('application/json'),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Event' });
export type OjsEvent = z.output<typeof OjsEventSchema>;

/** Builds an event. */
export function makeEvent(type: EventType, subject: string, data: Record<string, unknown>, time: string, source = 'ojs://ojskit/engine'): OjsEvent {
  return { specversion: '1.0', id: newEventId(), type, source, time, subject, datacontenttype: 'application/json', data };
}

/** Where the engine's events say they come from. */
export const EVENT_SOURCE = 'ojs://ojskit/engine';

/**
 * A job event as the engine records it: the transition's facts, without the wire envelope. The hub stores
 * these compactly and builds the `OjsEvent` (id included) only when something reads it.
 */
export interface JobEventRecord {
  readonly kind: 'job';
  readonly type: EventType;
  readonly jobId: string;
  readonly jobType: string;
  readonly queue: string;
  readonly state: JobState;
  readonly from: JobState | null;
  readonly attempt: number;
  readonly time: string;
  readonly extra: Record<string, unknown> | undefined;
  /**
   * When the job entered `from`, where the transition knows it: the time it last became available for a claim,
   * the start of the attempt for a move out of `active`. On the wire under the field `SINCE_FIELDS` names.
   */
  readonly since?: string | undefined;
}

/**
 * The wire field that carries a job event's `since`, by the state the job left: the envelope's own name for
 * that instant, so the time spent there (wait, run time) can be measured from any one event, in any process.
 */
export const SINCE_FIELDS: Readonly<Partial<Record<JobState, 'enqueued_at' | 'started_at'>>> = Object.freeze({
  [STATE_ROLES.claimable]: 'enqueued_at',
  // A dispatch log's job waits in `pending` after `available` (`DISPATCH_EFFECTS`): its wait runs from the same instant.
  [STATE_ROLES.pending]: 'enqueued_at',
  [STATE_ROLES.claimed]: 'started_at',
});

/** What the engine hands the hub: a built event (queue, cron, workflow) or a job event record. */
export type EventInput = OjsEvent | JobEventRecord;

/** True for a job event record. */
export function isJobEventRecord(input: EventInput): input is JobEventRecord {
  return (input as JobEventRecord).kind === 'job';
}

/** The wire form of a job event record, under the given id. */
export function jobEventToOjs(record: Omit<JobEventRecord, 'kind'>, id: string): OjsEvent {
  const event: OjsEvent = {
    specversion: '1.0',
    id,
    type: record.type,
    source: EVENT_SOURCE,
    time: record.time,
    subject: record.jobId,
    datacontenttype: 'application/json',
    data: {
      job_id: record.jobId,
      job_type: record.jobType,
      queue: record.queue,
      state: record.state,
      from: record.from,
      attempt: record.attempt,
      ...record.extra,
    },
  };
  const field = record.since === undefined || record.from === null ? undefined : SINCE_FIELDS[record.from];
  if (field !== undefined) event.data[field] = record.since;
  return event;
}
