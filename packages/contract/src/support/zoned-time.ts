/** Wall-clock fields of an instant in an IANA zone, and a brute-force "next matching minute" for cron expectations. */

export interface ZonedFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 = Sunday. */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The local date and time of `ms` in `timeZone`. */
export function zonedFields(ms: number, timeZone: string): ZonedFields {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAYS.indexOf(parts.weekday!),
  };
}

/**
 * The first whole minute strictly after `afterMs` whose local fields in `timeZone` satisfy `matches`.
 * An independent oracle for `next_run_at`: it shares no code with the engine's cron parser.
 */
export function nextMinuteMatching(afterMs: number, timeZone: string, matches: (f: ZonedFields) => boolean, horizonDays = 3): number {
  let candidate = Math.floor(afterMs / 60_000) * 60_000 + 60_000;
  const limit = afterMs + horizonDays * 86_400_000;
  for (; candidate <= limit; candidate += 60_000) {
    if (matches(zonedFields(candidate, timeZone))) return candidate;
  }
  throw new Error(`no matching minute within ${horizonDays} days`);
}
