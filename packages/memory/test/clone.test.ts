import { describe, expect, it } from 'vitest';
import { cloneValue } from '../src/clone.js';

describe('cloneValue', () => {
  it('copies nested arrays and objects deeply', () => {
    const source = { a: [1, { b: 'x' }], c: { d: null } };
    const copy = cloneValue(source);
    expect(copy).toEqual(source);
    expect(copy.a).not.toBe(source.a);
    expect(copy.a[1]).not.toBe(source.a[1]);
    expect(copy.c).not.toBe(source.c);
  });

  it('keeps a JSON `__proto__` key as data', () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
    const copy = cloneValue(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'ok']);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('keeps the type of non-plain objects and drops undefined fields', () => {
    const when = new Date(0);
    const copy = cloneValue({ when, gone: undefined });
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect('gone' in copy).toBe(false);
  });
});
