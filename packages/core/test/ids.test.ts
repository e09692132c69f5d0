import { describe, expect, it, vi } from 'vitest';
import { eventIdFor, eventSeqOf, newEventId } from '../src/formats/ids.js';
import { UUIDV7_PATTERN, isUuidV7, newId, newRequestId } from '../src/entries/formats.js';

const V7 = '0196b2f0-8e4a-7c3d-9f12-3456789abcde';

describe('UUIDv7 ids', () => {
  it('accepts a lowercase hyphenated UUIDv7', () => {
    expect(isUuidV7(V7)).toBe(true);
    for (const variant of ['8', '9', 'a', 'b']) expect(isUuidV7(`0196b2f0-8e4a-7c3d-${variant}f12-3456789abcde`)).toBe(true);
  });

  it.each([
    ['v4', '550e8400-e29b-41d4-a716-446655440000'],
    ['uppercase', V7.toUpperCase()],
    ['mixed case', '0196B2F0-8e4a-7c3d-9f12-3456789abcde'],
    ['empty', ''],
    ['no hyphens', V7.replaceAll('-', '')],
    ['wrong variant', '0196b2f0-8e4a-7c3d-cf12-3456789abcde'],
    ['braced', `{${V7}}`],
    ['too long', `${V7}0`],
    ['nil', '00000000-0000-0000-0000-000000000000'],
  ])('rejects %s', (_label, value) => {
    expect(isUuidV7(value)).toBe(false);
  });

  it('agrees with UUIDV7_PATTERN on every one-character change of an id', () => {
    const alphabet = [...'0123456789abcdefgABCDEFxz7-_ {'];
    for (let i = 0; i < V7.length; i++) {
      for (const c of alphabet) {
        const value = V7.slice(0, i) + c + V7.slice(i + 1);
        expect(isUuidV7(value), value).toBe(UUIDV7_PATTERN.test(value));
      }
    }
  });

  it('rejects non-strings', () => {
    for (const v of [null, undefined, 7, {}, []]) expect(isUuidV7(v)).toBe(false);
  });

  it('newId makes distinct, valid, time-ordered v7 ids', () => {
    const ids = Array.from({ length: 200 }, () => newId());
    for (const id of ids) expect(id).toMatch(UUIDV7_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('newId carries the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('newId stays ordered through a small clock rollback and restarts from the clock after a large one', () => {
    const timeOf = (id: string): number => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    const now = vi.spyOn(Date, 'now');
    try {
      const start = Date.UTC(2031, 0, 1);
      now.mockReturnValue(start);
      const first = newId();
      now.mockReturnValue(start - 5_000);
      const second = newId();
      expect(second > first).toBe(true);
      expect(timeOf(second)).toBe(start);
      now.mockReturnValue(start - 60_000);
      const third = newId();
      expect(timeOf(third)).toBe(start - 60_000);
      now.mockReturnValue(start - 60_000);
      expect(newId() > third).toBe(true);
    } finally {
      now.mockRestore();
    }
  });

  it('newId draws the variant bits and the random tail afresh (not a fixed pattern)', () => {
    const now = vi.spyOn(Date, 'now');
    try {
      const ids = Array.from({ length: 400 }, (_, i) => {
        now.mockReturnValue(Date.UTC(2032, 0, 1) + i);
        return newId();
      });
      for (const id of ids) expect(id).toMatch(UUIDV7_PATTERN);
      expect(new Set(ids.map((id) => id[19])).size).toBe(4);
      expect(new Set(ids.map((id) => id.slice(28))).size).toBe(ids.length);
    } finally {
      now.mockRestore();
    }
  });

  it('request and event ids carry their prefix and a v7', () => {
    expect(newRequestId()).toMatch(/^req_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('eventIdFor', () => {
  it('writes the instant and the sequence number of each event, whatever instant came before', () => {
    const a = Date.UTC(2026, 0, 1);
    const b = a + 1;
    const ids = [eventIdFor(a, 1), eventIdFor(a, 2), eventIdFor(b, 3), eventIdFor(a, 4), eventIdFor(b, 2 ** 32 + 5)];
    expect(ids.map((id) => id.slice(4, 12) + id.slice(13, 17))).toEqual([a, a, b, a, b].map((ms) => ms.toString(16).padStart(12, '0')));
    expect(ids.map(eventSeqOf)).toEqual([1, 2, 3, 4, 5]);
    for (const id of ids) expect(UUIDV7_PATTERN.test(id.slice(4))).toBe(true);
  });
});
