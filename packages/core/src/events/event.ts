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
