import { describe, expect, it } from 'vitest';
import { goDurationToMs, isValidTimezone, parseCron } from '../src/cron/expression.js';

const utc = (iso: string) => Date.parse(iso);
const next = (expr: string, after: string, tz = 'UTC') => {
  const ms = parseCron(expr, tz).nextAfter(utc(after));
  return ms === null ? null : new Date(ms).toISOString();
};

describe('parseCron accepts', () => {
  it.each([
    ['* * * * *', '2026-01-15T10:30:20Z', '2026-01-15T10:31:00.000Z'],
    ['*/15 * * * *', '2026-01-15T10:31:00Z', '2026-01-15T10:45:00.000Z'],
    ['0 9-17/4 * * *', '2026-01-15T10:00:00Z', '2026-01-15T13:00:00.000Z'],
    ['5,35 * * * *', '2026-01-15T10:06:00Z', '2026-01-15T10:35:00.000Z'],
    ['0 0 1 JAN *', '2026-01-15T00:00:00Z', '2027-01-01T00:00:00.000Z'],
    ['0 0 * * MON-FRI', '2026-01-16T12:00:00Z', '2026-01-19T00:00:00.000Z'], // Fri → Mon
    ['0 0 * * mon', '2026-01-15T00:00:00Z', '2026-01-19T00:00:00.000Z'],
    ['0 0 * * 7', '2026-01-15T00:00:00Z', '2026-01-18T00:00:00.000Z'], // 7 = Sunday
    ['0 0 * * 0', '2026-01-15T00:00:00Z', '2026-01-18T00:00:00.000Z'],
    ['0 0 L * *', '2026-02-01T00:00:00Z', '2026-02-28T00:00:00.000Z'],
    ['0 0 * * 5#2', '2026-01-01T00:00:00Z', '2026-01-09T00:00:00.000Z'], // second Friday
    ['30 0 0 * * *', '2026-01-15T10:00:00Z', '2026-01-16T00:00:30.000Z'], // 6 fields, leading seconds
    ['*/10 * * * * *', '2026-01-15T10:00:01Z', '2026-01-15T10:00:10.000Z'],
  ])('%s after %s → %s', (expr, after, expected) => {
    expect(next(expr, after)).toBe(expected);
  });

  it.each([
    ['@yearly', '2027-01-01T00:00:00.000Z'],
    ['@annually', '2027-01-01T00:00:00.000Z'],
    ['@monthly', '2026-02-01T00:00:00.000Z'],
    ['@weekly', '2026-01-18T00:00:00.000Z'],
    ['@daily', '2026-01-16T00:00:00.000Z'],
    ['@midnight', '2026-01-16T00:00:00.000Z'],
    ['@hourly', '2026-01-15T11:00:00.000Z'],
    ['@DAILY', '2026-01-16T00:00:00.000Z'],
  ])('shorthand %s', (expr, expected) => {
    expect(next(expr, '2026-01-15T10:30:00Z')).toBe(expected);
  });

  it('@every <go duration> is anchored to the given anchor', () => {
    const s = parseCron('@every 5m', 'UTC');
    const anchor = utc('2026-01-15T10:00:00Z');
    expect(s.nextAfter(anchor, anchor)).toBe(anchor + 300_000);
    expect(s.nextAfter(anchor + 301_000, anchor)).toBe(anchor + 600_000);
    expect(s.nextAfter(anchor + 300_000, anchor)).toBe(anchor + 600_000);
    expect(parseCron('@every 1h30m', 'UTC').nextAfter(anchor)).toBe(anchor + 5_400_000);
  });

  it('nextAfter is strictly after the instant', () => {
    expect(next('0 * * * *', '2026-01-15T10:00:00Z')).toBe('2026-01-15T11:00:00.000Z');
  });
});

describe('parseCron rejects', () => {
  it.each([
    ['4 fields', '* * * *'],
    ['7 fields', '0 0 0 * * * *'],
    ['3 fields', '* * *'],
    ['step 0', '*/0 * * * *'],
    ['minute 60', '60 * * * *'],
    ['hour 24', '0 24 * * *'],
    ['day 32', '0 0 32 * *'],
    ['day 0', '0 0 0 * *'],
    ['month 13', '0 0 1 13 *'],
    ['dow 8', '0 0 * * 8'],
    ['empty', ''],
    ['blank', '   '],
    ['garbage', 'every day'],
    ['unknown shorthand', '@fortnightly'],
    ['@every without duration', '@every '],
    ['@every bad duration', '@every 5x'],
    ['@every zero', '@every 0s'],
    ['bad name', '0 0 * * FUNDAY'],
  ])('%s (%j)', (_label, expr) => {
    expect(() => parseCron(expr, 'UTC')).toThrow();
  });

  it('unknown timezone', () => {
    expect(() => parseCron('0 9 * * *', 'Mars/Olympus_Mons')).toThrow(/timezone/i);
    expect(isValidTimezone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimezone('America/New_York')).toBe(true);
  });
});

describe('timezones', () => {
  it('9:00 America/New_York is 14:00Z in winter (EST) and 13:00Z in summer (EDT)', () => {
    expect(next('0 9 * * *', '2026-01-15T00:00:00Z', 'America/New_York')).toBe('2026-01-15T14:00:00.000Z');
    expect(next('0 9 * * *', '2026-07-15T00:00:00Z', 'America/New_York')).toBe('2026-07-15T13:00:00.000Z');
  });

  it('9:00 Asia/Kolkata (+05:30) is 03:30Z', () => {
    expect(next('0 9 * * *', '2026-01-15T00:00:00Z', 'Asia/Kolkata')).toBe('2026-01-15T03:30:00.000Z');
  });

  it('a local time skipped by DST fires at the next valid time, once', () => {
    // 2026-03-08 02:30 does not exist in New York (clocks jump 02:00 → 03:00 EDT = 07:00Z).
    const first = next('30 2 * * *', '2026-03-08T05:00:00Z', 'America/New_York');
    expect(first === '2026-03-08T07:00:00.000Z' || first === '2026-03-08T07:30:00.000Z').toBe(true);
    expect(next('30 2 * * *', first!, 'America/New_York')).toBe('2026-03-09T06:30:00.000Z');
  });

  it('a repeated local time fires once', () => {
    // 2026-11-01 01:30 happens twice in New York (05:30Z EDT and 06:30Z EST).
    const first = next('30 1 * * *', '2026-11-01T04:00:00Z', 'America/New_York');
    expect(first === '2026-11-01T05:30:00.000Z' || first === '2026-11-01T06:30:00.000Z').toBe(true);
    expect(next('30 1 * * *', first!, 'America/New_York')).toBe('2026-11-02T06:30:00.000Z');
  });
});

describe('goDurationToMs', () => {
  it.each([
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
  ])('%s → %i', (text, ms) => {
    expect(goDurationToMs(text)).toBe(ms);
  });
  it.each(['', '5', '5x', 'PT5M', '-5s'])('rejects %j', (text) => {
    expect(goDurationToMs(text)).toBeUndefined();
  });
});
