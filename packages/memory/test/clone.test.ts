import { describe, expect, it } from 'vitest';
import type { Job } from '@ojskit/core';
import type { JobInternals } from '@ojskit/core/driver';
import { cloneValue, copyInternals, copyJob, copyStoredJob } from '../src/clone.js';

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
      visibilityMs: 1,
      timeoutMs: 2,
      dueAt: 3,
      claimVisibilityMs: 4,
      visibleUntil: 5,
      timeoutAt: 6,
      finishedAt: 7,
      dispatchedAt: 17,
      expiresAt: 8,
      uniqueKey: 'k',
      uniqueStates: ['active'],
      uniqueUntil: 9,
      uniqueOnConflict: 'replace',
      deadLetter: true,
      progress: { progress: 0.5, message: 'half', data: { a: [1] }, updated_at: 'now' },
      workflowIndex: 10,
      workflowRole: 'on_complete',
      rateLimit: { intervalMs: 100, concurrency: 2, key: 'k' },
    };
    const copy = copyInternals(full);
    expect(copy).toEqual(full);
    expect(copy.uniqueStates).not.toBe(full.uniqueStates);
    expect(copy.progress).not.toBe(full.progress);
    expect(copy.rateLimit).not.toBe(full.rateLimit);
    expect((copy.progress!.data as { a: number[] }).a).not.toBe((full.progress.data as { a: number[] }).a);
  });

  it('holds unset fields as undefined, which copies handed out drop', () => {
    const copy = copyInternals({ visibilityMs: 1, timeoutMs: 2 });
    expect(cloneValue(copy)).toStrictEqual({ visibilityMs: 1, timeoutMs: 2 });
  });
});

describe('copyJob', () => {
  const job = (): Job => ({
    specversion: '1.0',
    id: '019a0000-0000-7000-8000-000000000000',
    type: 't.x',
    queue: 'q',
    args: [1, { a: [2] }],
    meta: { m: { n: 1 } },
    priority: 0,
    state: 'available',
    attempt: 0,
    max_attempts: 3,
    created_at: 'c',
    enqueued_at: 'e',
    tags: ['t'],
    retry: {
      max_attempts: 3,
      initial_interval: 'PT1S',
      backoff_coefficient: 2,
      max_interval: 'PT1M',
      jitter: true,
      non_retryable_errors: [],
      on_exhaustion: 'discard',
      backoff_strategy: 'exponential',
    },
    custom_attribute: { deep: [1] },
  });

  it('copies named and other fields deeply, and copies handed out equal the source', () => {
    const source = job();
    const copy = copyJob(source);
    expect(cloneValue(copy)).toStrictEqual(source);
    expect(copy.args).not.toBe(source.args);
    expect(copy.args[1]).not.toBe(source.args[1]);
    expect(copy.meta.m).not.toBe(source.meta.m);
    expect(copy.tags).not.toBe(source.tags);
    expect(copy.retry).not.toBe(source.retry);
    expect((copy.custom_attribute as { deep: number[] }).deep).not.toBe((source.custom_attribute as { deep: number[] }).deep);
  });

  it('stores an empty meta as one shared object, and hands out a fresh one', () => {
    const first = copyJob({ ...job(), meta: {} });
    const second = copyJob({ ...job(), meta: {} });
    expect(first.meta).toBe(second.meta);
    expect(Object.isFrozen(first.meta)).toBe(true);
    const out = copyStoredJob(first);
    expect(out.meta).toStrictEqual({});
    expect(out.meta).not.toBe(first.meta);
    out.meta.added = true;
    expect(copyStoredJob(second).meta).toStrictEqual({});
    expect(copyJob({ ...job(), meta: Object.create({ inherited: 1 }) as Record<string, unknown> }).meta).not.toBe(first.meta);
  });

  it('holds the fields claims and ACKs write as undefined until set', () => {
    const copy = copyJob(job());
    expect(Object.keys(copy)).toEqual(expect.arrayContaining(['started_at', 'worker_id', 'completed_at']));
    expect(copy.started_at).toBeUndefined();
  });

  it('keeps a JSON `__proto__` attribute as data', () => {
    const source = JSON.parse(JSON.stringify(job()).replace('{', '{"__proto__": {"polluted": true},')) as Job;
    const copy = copyJob(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(copy)).toContain('__proto__');
  });
});

describe('copyStoredJob', () => {
  const stored = (): Job =>
    copyJob({
      specversion: '1.0',
      id: '019a0000-0000-7000-8000-000000000000',
      type: 't.x',
      queue: 'q',
      args: [1, { a: [2] }],
      meta: { m: { n: 1 } },
      priority: 0,
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      created_at: 'c',
      enqueued_at: 'e',
      tags: ['t'],
      custom_attribute: { deep: [1] },
      '7': 'an index-like key',
    });

  /** Same keys in the same order, same values, no shared objects. */
  function expectSameAsClone(job: Job): void {
    const copy = copyStoredJob(job);
    const reference = cloneValue(job);
    expect(copy).toStrictEqual(reference);
    expect(Object.keys(copy)).toEqual(Object.keys(reference));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(reference));
    for (const key of Object.keys(job)) {
      const value = (job as Record<string, unknown>)[key];
      if (typeof value === 'object' && value !== null) expect((copy as Record<string, unknown>)[key]).not.toBe(value);
    }
  }

  it('copies a fresh job as cloneValue does', () => {
    expectSameAsClone(stored());
  });

  it('copies a claimed then acknowledged job, with fields set, cleared and added later', () => {
    const job = stored();
    job.state = 'active';
    job.attempt = 1;
    job.started_at = 's';
    job.worker_id = 'w';
    expectSameAsClone(job);
    job.state = 'completed';
    job.completed_at = 'd';
    job.result = { ok: [1] };
    job.worker_id = undefined;
    job.tags = undefined;
    expectSameAsClone(job);
  });

  it('copies objects wherever they sit, even in fields that hold text in every engine job', () => {
    const job = stored();
    (job as Record<string, unknown>).started_at = { odd: ['value'] };
    (job as Record<string, unknown>).type = { odd: true };
    expectSameAsClone(job);
  });

  it('keeps a JSON `__proto__` attribute as data', () => {
    const job = copyJob(JSON.parse(JSON.stringify(stored()).replace('{', '{"__proto__": {"polluted": true},')) as Job);
    const copy = copyStoredJob(job);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(Object.keys(cloneValue(job)));
  });

  it('takes the generic copy for a job missing a field every engine job has', () => {
    const job = stored();
    job.specversion = undefined as unknown as '1.0';
    expectSameAsClone(job);
  });
});
