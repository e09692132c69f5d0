/** Times between the SDK (Date, milliseconds) and the wire (RFC 3339 text, ISO 8601 durations). */
import { durationToMs, msToDuration, timestampMs } from '@ojskit/core/formats';

/** A point in time as callers give it: a `Date`, or RFC 3339 text sent verbatim (its offset is kept). */
export type TimeInput = Date | string;

/** A length of time as callers give it: milliseconds, or an ISO 8601 duration such as `PT5M`. */
export type DurationInput = number | string;

/** RFC 3339 text for the wire. */
export function timeToWire(value: TimeInput): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('Invalid Date');
    return value.toISOString();
  }
  return value;
}

/** A wire timestamp as a `Date`; `undefined`/`null` stay absent. */
export function timeFromWire(value: string | null | undefined): Date | undefined {
  return typeof value === 'string' ? dateFromWire(value) : undefined;
}

/**
 * A wire timestamp as a `Date`, as `new Date(text)` reads it. Parsing goes through core's `timestampMs`,
 * which remembers the instant it formatted or read last: the jobs of one claim share their `started_at`, and
 * jobs enqueued together their `created_at`, and parsing the text costs more than the rest of mapping a job.
 */
export function dateFromWire(text: string): Date {
  return new Date(timestampMs(text));
}

/** An ISO 8601 duration for the wire (other OJS servers do not all accept the `*_ms` forms). */
export function durationToWire(value: DurationInput): string {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`A duration must be a non-negative number of ms, got ${value}`);
  return msToDuration(value);
}

/** Milliseconds in a wire duration (undefined when it cannot be read). */
export function durationFromWire(value: string | undefined): number | undefined {
  return value === undefined ? undefined : durationToMs(value);
}

/**
 * A relative time (`+PT5S`): the server resolves it against its own clock, so a delay means the same
 * thing in-process under a test clock as it does against a remote server.
 */
export function relativeToWire(delay: DurationInput): string {
  return `+${durationToWire(delay)}`;
}
