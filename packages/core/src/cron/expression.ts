/** Cron expressions (5 fields, optional leading seconds, `@` shorthands, `@every`) and IANA timezones, via croner. */
import { Cron } from 'croner';

const SHORTHANDS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const GO_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go-style duration (`1h30m`, `90s`), or undefined. */
export function goDurationToMs(text: string): number | undefined {
  if (!GO_DURATION.test(text)) return undefined;
  let ms = 0;
  for (const [, value, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(value) * GO_UNIT_MS[unit!]!;
  return ms;
}

/** True for a timezone name the runtime knows (IANA). */
export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** A validated schedule: computes occurrences strictly after a given instant. */
export interface CronSchedule {
  /** Epoch ms of the first occurrence strictly after `after`, or null when there is none. */
  nextAfter(after: number, anchor?: number): number | null;
}

/**
 * Parses an expression; throws an Error with a readable message when it is invalid (5 or 6 fields,
 * ranges, steps ≠ 0, names, `L W #`, shorthands, `@every <go duration>`).
 * @example parseCron('0 9 * * MON-FRI', 'Europe/Paris').nextAfter(Date.now())
 */
export function parseCron(expression: string, timezone: string): CronSchedule {
  const text = expression.trim();
  if (text === '') throw new Error('The cron expression is empty.');
  if (!isValidTimezone(timezone)) throw new Error(`Unknown IANA timezone '${timezone}'.`);
  if (text.startsWith('@every ')) {
    const interval = goDurationToMs(text.slice(7).trim());
    if (interval === undefined || interval <= 0) throw new Error(`Invalid @every duration in '${expression}'.`);
    return { nextAfter: (after, anchor = after) => anchor + Math.max(1, Math.floor((after - anchor) / interval) + 1) * interval };
  }
  let pattern = text;
  if (text.startsWith('@')) {
    const expanded = SHORTHANDS[text.toLowerCase()];
    if (!expanded) throw new Error(`Unknown cron shorthand '${text}'.`);
    pattern = expanded;
  }
  const fields = pattern.split(/\s+/).length;
  if (fields !== 5 && fields !== 6) throw new Error(`A cron expression has 5 fields (or 6 with leading seconds); '${expression}' has ${fields}.`);
  let cron: Cron;
  try {
    cron = new Cron(pattern, { timezone, paused: true });
  } catch (err) {
    throw new Error(`Invalid cron expression '${expression}': ${(err as Error).message.replace(/^CronPattern: /, '')}`, { cause: err });
  }
  return { nextAfter: (after) => cron.nextRun(new Date(after))?.getTime() ?? null };
}
