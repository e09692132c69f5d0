import { describe, expect, it } from 'vitest';
import { durationToMs, msToDuration, settingMs } from '../src/entries/formats.js';

describe('durationToMs (ISO 8601)', () => {
  it.each([
    ['PT0.5S', 500],
    ['PT1S', 1_000],
    ['PT1.5S', 1_500],
    ['PT5M', 300_000],
    ['PT1H', 3_600_000],
    ['PT1H30M', 5_400_000],
    ['P1D', 86_400_000],
    ['P1DT2H', 93_600_000],
    ['P1DT2H3M4.25S', 93_784_250],
    ['P1W', 604_800_000],
    ['PT0S', 0],
  ])('%s → %i ms', (text, ms) => {
    expect(durationToMs(text)).toBe(ms);
  });

  it('accepts years and months (SHOULD) with some fixed length', () => {
    expect(durationToMs('P1Y')).toBeGreaterThan(durationToMs('P1M')!);
    expect(durationToMs('P1M')).toBeGreaterThan(durationToMs('P1W')!);
  });

  it.each(['', 'P', 'PT', 'P1DT', '1D', 'PT1', 'PT1X', 'T1S', 'P1H', 'PT1.5', 'PTS', 'pt1s', ' PT1S', 'PT1S ', 'PT1S2M', 'abc'])(
    'rejects malformed %j',
    (text) => {
      expect(durationToMs(text)).toBeUndefined();
    },
  );

  it.each(['-PT5S', 'PT-5S', '-P1D', '-5s'])('rejects negative %j', (text) => {
    expect(durationToMs(text)).toBeUndefined();
  });
});

describe('durationToMs (short forms)', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
  ])('%s → %i ms', (text, ms) => {
    expect(durationToMs(text)).toBe(ms);
  });

  it.each(['5', 'ms', '5 m', '5M', '5min', '1h30m', 's5'])('rejects %j', (text) => {
    expect(durationToMs(text)).toBeUndefined();
  });
});

describe('msToDuration', () => {
  it.each([
    [0, 'PT0S'],
    [500, 'PT0.5S'],
    [1_000, 'PT1S'],
    [300_000, 'PT5M'],
    [3_600_000, 'PT1H'],
    [5_430_500, 'PT1H30M30.5S'],
  ])('%i ms → %s', (ms, text) => {
    expect(msToDuration(ms)).toBe(text);
  });

  it('round-trips through durationToMs', () => {
    for (const ms of [1, 999, 1_000, 61_000, 86_400_000, 93_784_250]) expect(durationToMs(msToDuration(ms))).toBe(ms);
  });
});

describe('settingMs', () => {
  it('accepts integers from 0 to 60000 and names the option otherwise', () => {
    expect(settingMs('x', 0)).toBe(0);
    expect(settingMs('x', 60_000)).toBe(60_000);
    for (const bad of [-1, 1.5, 60_001, Number.NaN])
      expect(() => settingMs('eventOrderWindowMs', bad)).toThrow(/^eventOrderWindowMs: an integer from 0 to 60000/);
  });
});
