import { describe, expect, it } from 'vitest';
import { flatten } from '../src/flatten.js';

describe('flatten', () => {
  it('returns the same string value, whatever it holds', () => {
    let built = '';
    for (const ch of '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b') built += ch;
    for (const text of [built, '', '42', ' 7 ', 'Infinity', 'ÆØÅ ☃', 'x'.repeat(10_000)]) expect(flatten(text)).toBe(text);
  });
});
