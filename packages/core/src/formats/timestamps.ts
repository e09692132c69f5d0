/** RFC 3339 timestamps: server times in UTC with milliseconds; client times validated and echoed verbatim. */
import { durationToMs } from './durations.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A server timestamp: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
 * @example toTimestamp(0) // '1970-01-01T00:00:00.000Z'
 */
export function toTimestamp(ms: number): string {
  // Many jobs of one request share a millisecond: formatting a Date costs more than the rest of a claim.
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
}

let lastMs = Number.NaN;
let lastText = '';

/**
 * `Date.parse(text)`, remembering the last answers: the timestamps an engine or a worker reads back (a job's
 * `created_at` and `started_at`, `completed_at`) are mostly instants it just formatted or just read, the
 * two of a job alternating from job to job.
 * @example timestampMs('1970-01-01T00:00:00.000Z') // 0
 */
export function timestampMs(text: string): number {
  if (text === lastText) return lastMs;
  if (text === parsedText[0]) return parsedMs[0]!;
  if (text === parsedText[1]) return parsedMs[1]!;
  const slot = nextSlot;
  nextSlot = 1 - slot;
  parsedText[slot] = text;
  return (parsedMs[slot] = Date.parse(text));
}

const parsedText: [string, string] = ['', ''];
const parsedMs: [number, number] = [Number.NaN, Number.NaN];
let nextSlot = 0;

/** Epoch ms of an RFC 3339 timestamp with an offset, or `undefined` when it is not one. */
export function parseTimestamp(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  // Date.parse rolls 31 February over into March; RFC 3339 days depend on the month and leap year.
  const daysInMonth = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth || h! > 23 || mi! > 59 || s! > 59) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The last instant RFC 3339 can write (its years have four digits): 9999-12-31T23:59:59.999Z. */
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Resolves a timestamp field that may be relative (`+PT5S`): returns the text to store and its epoch ms.
 * Relative values become absolute UTC timestamps, as the protocol requires; absolute ones are kept verbatim.
 * A relative value landing after year 9999 is `undefined`: no RFC 3339 text can say it (a Date would print
 * `+201894-…`, or throw beyond ±8.64e15 ms).
 */
export function resolveTimestamp(text: string, now: number): { text: string; ms: number } | undefined {
  if (text.startsWith('+')) {
    const ms = durationToMs(text.slice(1));
    if (ms === undefined || !(now + ms <= MAX_TIMESTAMP_MS)) return undefined;
    return { text: toTimestamp(now + ms), ms: now + ms };
  }
  const ms = parseTimestamp(text);
  return ms === undefined ? undefined : { text, ms };
}
