/** ISO 8601 durations (`PT0.5S`, `P1DT2H`) and the short forms `500ms`/`30s`/`5m`/`1h`, to milliseconds. */
import { parse as parseIso } from 'tinyduration';

const SHORT = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
// tinyduration stops at the first unparsable part; the whole text must be one well-ordered duration.
const ISO_DURATION =
  /^P(?!$)(?:\d+(?:\.\d+)?Y)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?W)?(?:\d+(?:\.\d+)?D)?(?:T(?=\d)(?:\d+(?:\.\d+)?H)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?S)?)?$/;
const SHORT_UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

// Years and months have no fixed length; the protocol only SHOULDs them, so use the usual 365/30 days.
const ISO_UNIT_MS = {
  years: 365 * 86_400_000,
  months: 30 * 86_400_000,
  weeks: 7 * 86_400_000,
  days: 86_400_000,
  hours: 3_600_000,
  minutes: 60_000,
  seconds: 1_000,
} as const;

/**
 * Milliseconds in a duration, or `undefined` when the text is not a valid duration.
 * @example durationToMs('PT1.5S') // 1500
 * @example durationToMs('5m') // 300000
 */
export function durationToMs(text: string): number | undefined {
  const short = SHORT.exec(text);
  if (short) return Math.round(Number(short[1]) * SHORT_UNIT_MS[short[2]!]!);
  if (!ISO_DURATION.test(text)) return undefined;
  try {
    const d = parseIso(text);
    if (d.negative) return undefined;
    let ms = 0;
    for (const [unit, factor] of Object.entries(ISO_UNIT_MS)) ms += ((d as Record<string, number | undefined>)[unit] ?? 0) * factor;
    return Math.round(ms);
  } catch {
    return undefined;
  }
}

/**
 * An ISO 8601 duration for a number of milliseconds (`PT1.5S`), for echoing policies.
 * @example msToDuration(300000) // 'PT5M'
 */
export function msToDuration(ms: number): string {
  if (ms === 0) return 'PT0S';
  let rest = ms;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1_000;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
}

/**
 * Checks a delay setting in milliseconds (an event publish delay, an ordering window): an integer from 0 to
 * 60 000. Throws a `TypeError` naming the option otherwise; returns the value.
 * @example settingMs('eventPublishDelayMs', 2) // 2
 */
export function settingMs(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 60_000) throw new TypeError(`${option}: an integer from 0 to 60000 (ms)`);
  return value;
}
