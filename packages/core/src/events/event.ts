/** OJS events: the CloudEvents-shaped record of every transition, published by the engine. */
import { newEventId } from '../formats/ids.js';
import type { JobState } from '../lifecycle/states.js';

/** Every event type the engine emits. */
export const EVENT_TYPES = [
  'job.enqueued', 'job.scheduled', 'job.started', 'job.completed', 'job.failed', 'job.retrying', 'job.discarded',
  'job.cancelled', 'job.expired', 'job.heartbeat', 'job.progress', 'job.pending', 'job.activated', 'job.requeued',
  'queue.paused', 'queue.resumed', 'cron.triggered', 'cron.skipped',
  'workflow.started', 'workflow.step_completed', 'workflow.completed', 'workflow.failed', 'workflow.cancelled',
  'dead_letter.added', 'dead_letter.retried', 'dead_letter.deleted',
  'backpressure.rejected',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Data every job event carries; `from` is the state before the transition (ojskit extension, for animation). */
export interface JobEventData {
  job_id: string;
  job_type: string;
  queue: string;
  state: JobState;
  from?: JobState | null;
  attempt?: number;
  [field: string]: unknown;
}

/** An event, shaped as the protocol's polling and SSE payloads. */
export interface OjsEvent {
  specversion: '1.0';
  id: string;
  type: EventType;
  source: string;
  time: string;
  subject: string;
  datacontenttype: 'application/json';
  data: Record<string, unknown>;
}

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
}

/** What the engine hands the hub: a built event (queue, cron, workflow) or a job event record. */
export type EventInput = OjsEvent | JobEventRecord;

/** True for a job event record. */
export function isJobEventRecord(input: EventInput): input is JobEventRecord {
  return (input as JobEventRecord).kind === 'job';
}

/** The wire form of a job event record, under the given id. */
export function jobEventToOjs(record: Omit<JobEventRecord, 'kind'>, id: string): OjsEvent {
  return {
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
}
