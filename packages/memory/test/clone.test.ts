import { describe, expect, it } from 'vitest';
import type { JobInternals } from '@ojskit/core';
import { cloneValue, copyInternals } from '../src/clone.js';

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

describe('copyInternals', () => {
  it('copies every field deeply (the fixture must name every field of JobInternals)', () => {
    const full: Required<JobInternals> = {
      visibilityMs: 1, timeoutMs: 2, dueAt: 3, claimVisibilityMs: 4, visibleUntil: 5, timeoutAt: 6, finishedAt: 7,
      expiresAt: 8, uniqueKey: 'k', uniqueStates: ['active'], uniqueUntil: 9, uniqueOnConflict: 'replace', deadLetter: true,
      progress: { progress: 0.5, message: 'half', data: { a: [1] }, updated_at: 'now' }, workflowIndex: 10, workflowRole: 'on_complete',
    };
    const copy = copyInternals(full);
    expect(copy).toEqual(full);
    expect(copy.uniqueStates).not.toBe(full.uniqueStates);
    expect(copy.progress).not.toBe(full.progress);
    expect((copy.progress!.data as { a: number[] }).a).not.toBe((full.progress.data as { a: number[] }).a);
  });

  it('holds unset fields as undefined, which copies handed out drop', () => {
    const copy = copyInternals({ visibilityMs: 1, timeoutMs: 2 });
    expect(cloneValue(copy)).toStrictEqual({ visibilityMs: 1, timeoutMs: 2 });
  });
});
