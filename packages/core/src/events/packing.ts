/**
 * A compact wire form of events for cross-process transports (NOTIFY payloads, pub/sub messages): about half
 * the bytes of the CloudEvents JSON. `packEvent` writes it, `unpackEvent` restores the event exactly.
 */
import type { JobState } from '../lifecycle/states.js';
import { EVENT_SOURCE, SINCE_FIELDS, type OjsEvent } from './event.js';

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
  | [
      id: string,
      type: OjsEvent['type'],
      source: string | null,
      time: string,
      subject: string,
      jobType: unknown,
      queue: unknown,
      state: unknown,
      from: unknown,
      attempt: unknown,
      extra?: Record<string, unknown>,
    ];

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
    const packed: unknown[] = [
      event.id,
      event.type,
      parts.source,
      event.time,
      event.subject,
      data['job_type'],
      data['queue'],
      data['state'],
      data['from'],
      data['attempt'],
    ];
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
 * When the run's ids count up in their last 8 hex digits (the engine derives its ids from a sequence
 * number), only the first id travels, as `i`, and `e` holds the job ids alone: about four times the events.
 * Each event's `enqueued_at`/`started_at` (spec/events.md V3a, the one value that differs from job to job)
 * travels in `s`, in member order; the field is named by `SINCE_FIELDS[from]`.
 */
export interface EventGroup {
  j: unknown[];
  i?: string;
  e: string[];
  s?: string[];
}

/** The field of a job event's data that holds its `since` (as jobEventToOjs writes it: last), else undefined. */
function sinceKeyOf(data: Record<string, unknown>): string | undefined {
  const key = typeof data['from'] === 'string' ? SINCE_FIELDS[data['from'] as JobState] : undefined;
  if (key === undefined || typeof data[key] !== 'string') return undefined;
  let last: string | undefined;
  for (const k in data) last = k;
  return last === key ? key : undefined;
}

/** The value of an id's last 8 characters as lowercase hex digits, else -1. */
function hexTail(id: string): number {
  if (id.length < 8) return -1;
  let value = 0;
  for (let k = id.length - 8; k < id.length; k++) {
    const c = id.charCodeAt(k);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** `first` with its last 8 hex digits counted up by `k` (modulo 2^32, as the sequence wraps). */
function countedId(first: string, k: number): string {
  return first.slice(0, -8) + ((hexTail(first) + k) % 0x1_0000_0000).toString(16).padStart(8, '0');
}

/**
 * True when `data` holds the job fields, then exactly the flat values of `extra`, in their order, then (when
 * `sinceKey` is given) that field, a string.
 */
function sameExtraData(
  extra: Record<string, unknown> | undefined,
  extraKeys: readonly string[],
  data: Record<string, unknown>,
  sinceKey: string | undefined,
): boolean {
  let n = 0;
  for (const key in data) {
    if (n < JOB_DATA_KEYS.length) {
      if (key !== JOB_DATA_KEYS[n]) return false;
    } else if (n === JOB_DATA_KEYS.length + extraKeys.length) {
      if (key !== sinceKey || typeof data[key] !== 'string') return false;
    } else {
      if (key !== extraKeys[n - JOB_DATA_KEYS.length]) return false;
      const value = extra![key];
      if (value !== data[key] || (typeof value === 'object' && value !== null)) return false;
    }
    n++;
  }
  return n === JOB_DATA_KEYS.length + extraKeys.length + (sinceKey === undefined ? 0 : 1);
}

const NO_KEYS: readonly string[] = [];

/** True when `event` can join the group that `first` (with `parts`) opened. */
function joins(
  first: OjsEvent,
  parts: { source: string | null; extra: Record<string, unknown> | undefined },
  extraKeys: readonly string[],
  sinceKey: string | undefined,
  event: OjsEvent,
): boolean {
  if (event.type !== first.type || event.time !== first.time) return false;
  const a = first.data;
  const b = event.data;
  if (b['job_type'] !== a['job_type'] || b['queue'] !== a['queue'] || b['state'] !== a['state'] || b['from'] !== a['from'] || b['attempt'] !== a['attempt'])
    return false;
  return (
    event.specversion === '1.0' &&
    event.datacontenttype === 'application/json' &&
    hasExactlyEventKeys(event) &&
    b['job_id'] === event.subject &&
    (event.source === ENGINE_SOURCE ? null : event.source) === parts.source &&
    sameExtraData(parts.extra, extraKeys, b, sinceKey)
  );
}

// eslint-disable-next-line no-control-regex -- the range starts at NUL on purpose: any non-ASCII code unit
const NON_ASCII = /[^\x00-\x7f]/;

/** UTF-8 bytes of a string (a surrogate pair counts 4). */
function utf8Bytes(text: string): number {
  // Mostly ASCII (ids, names, timestamps): one regex test is about twice as fast as the loop below.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) bytes += c <= 0x7ff || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/** Printable ASCII but `"` and backslash: a string of these is its own JSON text between quotes. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(text)`; ids and names, written by the thousand into groups, skip its general path. */
function jsonString(text: string): string {
  return PLAIN_JSON.test(text) ? `"${text}"` : JSON.stringify(text);
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
    const group = parts !== undefined && i + 1 < events.length ? packGroup(events, i, parts, maxGroupBytes) : undefined;
    if (group !== undefined) {
      items.push({ text: group.text, event: undefined });
      i = group.end;
    } else {
      items.push({ text: packEvent(first), event: first });
      i++;
    }
  }
  return items;
}

/**
 * The group opened by `events[i]` (a job event, with `parts`): the events after it that join it, while the
 * group stays within `maxGroupBytes`; undefined when not even the next one joins. When the next event's id
 * counts up from the first one's, the group holds only events whose ids do (the compact form); otherwise
 * the id of each is written.
 */
function packGroup(
  events: readonly OjsEvent[],
  i: number,
  parts: { source: string | null; extra: Record<string, unknown> | undefined },
  maxGroupBytes: number,
): { text: string; end: number } | undefined {
  const first = events[i]!;
  const sinceKey = sinceKeyOf(first.data);
  let extra = parts.extra;
  if (sinceKey !== undefined && extra !== undefined) {
    const { [sinceKey]: _since, ...rest } = extra;
    extra = Object.keys(rest).length > 0 ? rest : undefined;
  }
  const shared = { source: parts.source, extra };
  const extraKeys = extra === undefined ? NO_KEYS : Object.keys(extra);
  if (!joins(first, shared, extraKeys, sinceKey, events[i + 1]!)) return undefined;
  const d = first.data;
  const common: unknown[] = [first.type, parts.source, first.time, d['job_type'], d['queue'], d['state'], d['from'], d['attempt']];
  if (extra !== undefined) common.push(extra);
  const head = JSON.stringify(common);
  const firstId = first.id;
  const seq = hexTail(firstId);
  const prefix = seq >= 0 ? firstId.slice(0, -8) : '';
  const counts = (k: number): boolean => {
    const id = events[k]!.id;
    return id.length === firstId.length && hexTail(id) === (seq + k - i) % 0x1_0000_0000 && id.startsWith(prefix);
  };
  const compact = seq >= 0 && counts(i + 1);
  const idText = compact ? JSON.stringify(firstId) : '';
  // {"j":…,"i":…,"e":[…]} or {"j":…,"e":[…]}, then ,"s":[…] when the events carry their since
  let bytes = utf8Bytes(head) + (compact ? utf8Bytes(idText) + 18 : 13) + (sinceKey === undefined ? 0 : 7);
  const members: string[] = [];
  const sinces: string[] = [];
  let k = i;
  for (; k < events.length; k++) {
    if (k > i && !(joins(first, shared, extraKeys, sinceKey, events[k]!) && (!compact || counts(k)))) break;
    const event = events[k]!;
    const member = compact ? jsonString(event.subject) : `${jsonString(event.id)},${jsonString(event.subject)}`;
    const since = sinceKey === undefined ? undefined : jsonString(event.data[sinceKey] as string);
    bytes += utf8Bytes(member) + (k > i ? 1 : 0) + (since === undefined ? 0 : utf8Bytes(since) + (k > i ? 1 : 0));
    if (bytes > maxGroupBytes) break;
    members.push(member);
    if (since !== undefined) sinces.push(since);
  }
  if (k - i < 2) return undefined;
  const tail = sinceKey === undefined ? '}' : `,"s":[${sinces.join(',')}]}`;
  return { text: compact ? `{"j":${head},"i":${idText},"e":[${members.join(',')}]${tail}` : `{"j":${head},"e":[${members.join(',')}]${tail}`, end: k };
}

/** The events an item of `packEvents` stands for (a packed event or a group). */
export function unpackItem(item: PackedEvent | OjsEvent | EventGroup): OjsEvent[] {
  if (Array.isArray(item) || 'specversion' in item || !('j' in item)) return [unpackEvent(item as PackedEvent | OjsEvent)];
  const [type, source, time, jobType, queue, state, from, attempt, extra] = item.j as [
    OjsEvent['type'],
    string | null,
    string,
    unknown,
    unknown,
    unknown,
    unknown,
    unknown,
    Record<string, unknown> | undefined,
  ];
  const events: OjsEvent[] = [];
  const sinceKey = item.s !== undefined && typeof from === 'string' ? SINCE_FIELDS[from as JobState] : undefined;
  const event = (id: string, subject: string): OjsEvent => {
    const data: Record<string, unknown> = { job_id: subject, job_type: jobType, queue, state, from, attempt };
    if (extra !== undefined) Object.assign(data, extra);
    if (sinceKey !== undefined) data[sinceKey] = item.s![events.length];
    return { specversion: '1.0', id, type, source: source ?? ENGINE_SOURCE, time, subject, datacontenttype: 'application/json', data };
  };
  if (item.i !== undefined) for (let k = 0; k < item.e.length; k++) events.push(event(k === 0 ? item.i : countedId(item.i, k), item.e[k]!));
  else for (let k = 0; k + 1 < item.e.length; k += 2) events.push(event(item.e[k]!, item.e[k + 1]!));
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
