import { describe, expect, it } from 'vitest';
import { parseTimestamp, resolveTimestamp, timestampMs, toTimestamp } from '../src/entries/formats.js';

const NOW = Date.UTC(2026, 0, 15, 10, 30, 0, 0);

describe('toTimestamp', () => {
  it('is UTC RFC 3339 with milliseconds', () => {
    expect(toTimestamp(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(toTimestamp(NOW + 7)).toBe('2026-01-15T10:30:00.007Z');
    expect(toTimestamp(NOW)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2026-01-15T10:30:00Z', NOW],
    ['2026-01-15T10:30:00.000Z', NOW],
    ['2026-01-15T10:30:00.5Z', NOW + 500],
    ['2026-01-15T12:30:00+02:00', NOW],
    ['2026-01-15T05:30:00-05:00', NOW],
    ['2026-01-15T10:30:00+00:00', NOW],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
  ])('%s → its instant', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each([
    '2026-01-15T10:30:00',
    '2026-01-15T10:30:00.000',
    '2026-01-15 10:30:00',
    '2026-01-15',
    '2026-01-15T10:30Z',
    '2026-01-15T10:30:00+0200',
    '2026-01-15T10:30:00+02',
    '2026-13-01T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-02-31T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-15T24:00:00Z',
    '2026-01-15T10:60:00Z',
    '1768473000000',
    '',
    'tomorrow',
  ])('rejects %j (offset required, well-formed)', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});

describe('resolveTimestamp', () => {
  it('resolves +duration to an absolute UTC timestamp', () => {
    expect(resolveTimestamp('+PT5S', NOW)).toEqual({ text: '2026-01-15T10:30:05.000Z', ms: NOW + 5_000 });
    expect(resolveTimestamp('+P1D', NOW)).toEqual({ text: '2026-01-16T10:30:00.000Z', ms: NOW + 86_400_000 });
    expect(resolveTimestamp('+PT0.25S', NOW)?.ms).toBe(NOW + 250);
  });

  it('keeps absolute timestamps verbatim, offset included', () => {
    expect(resolveTimestamp('2026-01-15T12:30:00+02:00', NOW)).toEqual({ text: '2026-01-15T12:30:00+02:00', ms: NOW });
  });

  it.each(['+', '+PT', '+garbage', '+-PT5S', '+PT-5S', '+PT5S2M', 'PT5S', '2026-01-15T10:30:00', '-PT5S'])('rejects %j', (text) => {
    expect(resolveTimestamp(text, NOW)).toBeUndefined();
  });
});

describe('timestampMs', () => {
  it('answers as Date.parse does, whether or not the text was just formatted or read', () => {
    const texts = [toTimestamp(1_700_000_000_123), '2026-01-15T10:30:00Z', '2026-01-15T10:30:00Z', toTimestamp(0), 'not a time', '2026-01-15T12:30:00+02:00'];
    for (const text of texts) expect(timestampMs(text)).toEqual(Date.parse(text));
  });

  it("answers right for texts that alternate (a job's created_at and started_at, job after job)", () => {
    const texts = ['2026-01-15T10:30:00.001Z', '2026-01-15T10:30:00.002Z', '2026-01-15T10:30:00.003Z'];
    for (let i = 0; i < 12; i++) {
      const text = texts[(i * 7) % 3]!;
      expect(timestampMs(text)).toBe(Date.parse(text));
      expect(timestampMs(texts[i % 2]!)).toBe(Date.parse(texts[i % 2]!));
    }
  });
});
