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

/** The parts of a job event that its positional form keeps; undefined for any other event. */
function jobParts(event: OjsEvent): { source: string | null; extra: Record<string, unknown> | undefined } | undefined {
  if (event.specversion !== '1.0' || event.datacontenttype !== 'application/json' || !hasExactlyEventKeys(event)) return undefined;
  const data = event.data;
  let n = 0;
  let extra: Record<string, unknown> | undefined;
  for (const key in data) {
    if (n < JOB_DATA_KEYS.length) {
      if (key !== JOB_DATA_KEYS[n]) return undefined;
      n++;
    } else (extra ??= {})[key] = data[key];
  }
  if (n < JOB_DATA_KEYS.length || data['job_id'] !== event.subject) return undefined;
  return { source: event.source === ENGINE_SOURCE ? null : event.source, extra };
}

/** Serialises an event for a message (see PackedEvent). */
export function packEvent(event: OjsEvent): string {
  const parts = jobParts(event);
  if (parts !== undefined) {
    const { data } = event;
    const packed: unknown[] = [event.id, event.type, parts.source, event.time, event.subject, data['job_type'], data['queue'], data['state'], data['from'], data['attempt']];
    if (parts.extra !== undefined) packed.push(parts.extra);
    return JSON.stringify(packed);
  }
  if (event.specversion !== '1.0' || event.datacontenttype !== 'application/json' || !hasExactlyEventKeys(event)) return JSON.stringify(event);
  return JSON.stringify([event.id, event.type, event.source === ENGINE_SOURCE ? null : event.source, event.time, event.subject, event.data]);
}

/**
 * A run of job events alike but for their id and job (the `job.started` of one claim, the `job.completed` of
 * one batch of ACKs): their common part once, `[type, source|null, time, job_type, queue, state, from,
 * attempt, extra?]`, then `[id, job_id, id, job_id, …]`. A message then carries about twice the events.
 */
export interface EventGroup {
  j: unknown[];
  e: string[];
}

/** True when the extras of two job events are the same flat values in the same order (objects never are). */
function sameExtra(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keys = Object.keys(a);
  let n = 0;
  for (const key in b) {
    if (key !== keys[n++]) return false;
    const value = a[key];
    if (value !== b[key] || (typeof value === 'object' && value !== null)) return false;
  }
  return n === keys.length;
}

/** True when `event` can join the group that `first` (with `parts`) opened. */
function joins(first: OjsEvent, parts: { source: string | null; extra: Record<string, unknown> | undefined }, event: OjsEvent): boolean {
  if (event.type !== first.type || event.time !== first.time) return false;
  const a = first.data;
  const b = event.data;
  if (b['job_type'] !== a['job_type'] || b['queue'] !== a['queue'] || b['state'] !== a['state'] || b['from'] !== a['from'] || b['attempt'] !== a['attempt']) return false;
  const other = jobParts(event);
  return other !== undefined && other.source === parts.source && sameExtra(parts.extra, other.extra);
}

/** UTF-8 bytes of a string (a surrogate pair counts 4). */
function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) bytes += c <= 0x7ff || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/**
 * Serialises events for a message, in order: runs of alike job events as one group item each (see
 * EventGroup) of at most `maxGroupBytes`, others one item each (`event` is set on those, so a transport can
 * set aside one too large for a message). `unpackItem` reads both.
 */
export function packEvents(events: readonly OjsEvent[], maxGroupBytes = 7_000): Array<{ text: string; event: OjsEvent | undefined }> {
  const items: Array<{ text: string; event: OjsEvent | undefined }> = [];
  let i = 0;
  while (i < events.length) {
    const first = events[i]!;
    const parts = jobParts(first);
    let end = i + 1;
    if (parts !== undefined) while (end < events.length && joins(first, parts, events[end]!)) end++;
    let text: string | undefined;
    if (end - i > 1) {
      const d = first.data;
      const common: unknown[] = [first.type, parts!.source, first.time, d['job_type'], d['queue'], d['state'], d['from'], d['attempt']];
      if (parts!.extra !== undefined) common.push(parts!.extra);
      const head = JSON.stringify(common);
      // As many of the run as fit; the rest opens the next group.
      let ids = '';
      let bytes = utf8Bytes(head) + 13; // {"j":…,"e":[…]}
      let k = i;
      for (; k < end; k++) {
        const pair = `${k > i ? ',' : ''}${JSON.stringify(events[k]!.id)},${JSON.stringify(events[k]!.subject)}`;
        bytes += utf8Bytes(pair);
        if (bytes > maxGroupBytes) break;
        ids += pair;
      }
      if (k - i > 1) {
        text = `{"j":${head},"e":[${ids}]}`;
        end = k;
      }
    }
    if (text !== undefined) {
      items.push({ text, event: undefined });
      i = end;
    } else {
      items.push({ text: packEvent(first), event: first });
      i++;
    }
  }
  return items;
}

/** The events an item of `packEvents` stands for (a packed event or a group). */
export function unpackItem(item: PackedEvent | OjsEvent | EventGroup): OjsEvent[] {
  if (Array.isArray(item) || 'specversion' in item || !('j' in item)) return [unpackEvent(item as PackedEvent | OjsEvent)];
  const [type, source, time, jobType, queue, state, from, attempt, extra] = item.j as [OjsEvent['type'], string | null, string, unknown, unknown, unknown, unknown, unknown, Record<string, unknown> | undefined];
  const events: OjsEvent[] = [];
  for (let k = 0; k + 1 < item.e.length; k += 2) {
    const subject = item.e[k + 1]!;
    const data: Record<string, unknown> = { job_id: subject, job_type: jobType, queue, state, from, attempt };
    if (extra !== undefined) Object.assign(data, extra);
    events.push({ specversion: '1.0', id: item.e[k]!, type, source: source ?? ENGINE_SOURCE, time, subject, datacontenttype: 'application/json', data });
  }
  return events;
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
