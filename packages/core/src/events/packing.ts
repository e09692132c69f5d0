/**
 * A compact wire form of events for cross-process transports (NOTIFY payloads, pub/sub messages): about half
 * the bytes of the CloudEvents JSON. `packEvent` writes it, `unpackEvent` restores the event exactly.
 */
import { EVENT_SOURCE, type OjsEvent } from './event.js';

/** The source the engine puts on its events, left out of payloads. */
const ENGINE_SOURCE = EVENT_SOURCE;
/** The data fields every job event starts with, in order (core's jobEventToOjs). */
const JOB_DATA_KEYS = ['job_id', 'job_type', 'queue', 'state', 'from', 'attempt'] as const;

/**
 * An event in a message. Positional forms drop what the reader can restore (the constant CloudEvents fields,
 * the engine's source, a job event's standard data fields), which makes a message about half as long:
 * - `[id, type, source|null, time, subject, data]` for an event with exactly the fields ojskit emits;
 * - `[id, type, source|null, time, subject, job_type, queue, state, from, attempt, extra?]` when, moreover,
 *   its data starts with the job fields and `job_id` is the subject;
 * - the event as it is otherwise.
 */
export type PackedEvent =
  | [id: string, type: OjsEvent['type'], source: string | null, time: string, subject: string, data: Record<string, unknown>]
  | [id: string, type: OjsEvent['type'], source: string | null, time: string, subject: string, jobType: unknown, queue: unknown, state: unknown, from: unknown, attempt: unknown, extra?: Record<string, unknown>];

const EVENT_KEYS = ['specversion', 'id', 'type', 'source', 'time', 'subject', 'datacontenttype', 'data'];

function hasExactlyEventKeys(event: OjsEvent): boolean {
  let n = 0;
  for (const key in event) if (key !== EVENT_KEYS[n++]) return false;
  return n === EVENT_KEYS.length;
}

/** Serialises an event for a message (see PackedEvent). */
export function packEvent(event: OjsEvent): string {
  if (event.specversion !== '1.0' || event.datacontenttype !== 'application/json' || !hasExactlyEventKeys(event)) return JSON.stringify(event);
  const source = event.source === ENGINE_SOURCE ? null : event.source;
  const data = event.data;
  let n = 0;
  let extra: Record<string, unknown> | undefined;
  for (const key in data) {
    if (n < JOB_DATA_KEYS.length) {
      if (key !== JOB_DATA_KEYS[n]) return JSON.stringify([event.id, event.type, source, event.time, event.subject, data]);
      n++;
    } else (extra ??= {})[key] = data[key];
  }
  if (n < JOB_DATA_KEYS.length || data['job_id'] !== event.subject) {
    return JSON.stringify([event.id, event.type, source, event.time, event.subject, data]);
  }
  const packed: unknown[] = [event.id, event.type, source, event.time, event.subject, data['job_type'], data['queue'], data['state'], data['from'], data['attempt']];
  if (extra !== undefined) packed.push(extra);
  return JSON.stringify(packed);
}

/** The event a packed item stands for (`packEvent`'s inverse). */
export function unpackEvent(item: PackedEvent | OjsEvent): OjsEvent {
  if (!Array.isArray(item)) return item;
  const [id, type, source, time, subject] = item;
  let data: Record<string, unknown>;
  if (item.length <= 6) data = item[5] as Record<string, unknown>;
  else {
    data = { job_id: subject, job_type: item[5], queue: item[6], state: item[7], from: item[8], attempt: item[9] };
    if (item[10] !== undefined) Object.assign(data, item[10]);
  }
  return { specversion: '1.0', id, type, source: source ?? ENGINE_SOURCE, time, subject, datacontenttype: 'application/json', data };
}
