import { describe, expect, it } from 'vitest';
import { UUIDV7_PATTERN, isUuidV7, newEventId, newId, newRequestId } from '../src/index.js';

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

  it('request and event ids carry their prefix and a v7', () => {
    expect(newRequestId()).toMatch(/^req_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
