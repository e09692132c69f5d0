import { describe, expect, it } from 'vitest';
import type { CronRecord, Driver } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';
import { at, iso, stored, T0 } from './fixtures.js';

const cron = (name: string, over: Partial<CronRecord> = {}): CronRecord => ({
  name,
  expression: '* * * * *',
  timezone: 'UTC',
  overlap_policy: 'allow',
  enabled: true,
  job_template: { type: 'tick', args: [] },
  created_at: iso(T0),
  next_run_at: iso(T0 + 60_000),
  last_run_at: null,
  run_count: 0,
  nextRunMs: T0 + 60_000,
  ...over,
});

describe('queues', () => {
  it('persists pause and resume with their times', async () => {
    const d = new MemoryDriver();
    expect(await d.queueGet('a')).toBeNull();
    expect(await d.queueSetPaused({ name: 'a', paused: true, nowIso: iso(T0) })).toEqual({ name: 'a', paused: true, created_at: iso(T0), paused_at: iso(T0) });
    const resumed = await d.queueSetPaused({ name: 'a', paused: false, nowIso: iso(T0 + 1) });
    expect(resumed).toMatchObject({ paused: false, paused_at: iso(T0), resumed_at: iso(T0 + 1) });
    expect(await d.queueGet('a')).toEqual(resumed);
  });
});

describe('workers', () => {
  it('keeps a directive across heartbeats', async () => {
    const d = new MemoryDriver();
    const beat = { id: 'w1', state: 'running', last_heartbeat_at: iso(T0), lastHeartbeatMs: T0, active_job_ids: ['j1'] };
    expect(await d.workerRecord(beat)).toMatchObject({ id: 'w1', directive: 'running' });
    await d.workerSetDirective({ id: 'w1', directive: 'quiet', nowIso: iso(T0), now: T0 });
    expect(await d.workerRecord({ ...beat, lastHeartbeatMs: T0 + 5 })).toMatchObject({ directive: 'quiet', lastHeartbeatMs: T0 + 5 });
    expect(await d.workerSetDirective({ id: 'new', directive: 'terminate', nowIso: iso(T0), now: T0 })).toMatchObject({ id: 'new', directive: 'terminate', lastHeartbeatMs: T0 });
    expect((await d.workerList()).map((w) => w.id)).toEqual(['w1', 'new']);
    await d.workerDelete('w1');
    expect((await d.workerList()).map((w) => w.id)).toEqual(['new']);
  });
});

describe('cron', () => {
  it('upserts, lists by name, deletes', async () => {
    const d = new MemoryDriver();
    expect(await d.cronUpsert(cron('b'))).toEqual({ created: true });
    expect(await d.cronUpsert(cron('a'))).toEqual({ created: true });
    expect(await d.cronUpsert(cron('b', { expression: '0 * * * *' }))).toEqual({ created: false });
    expect((await d.cronList()).map((c) => c.name)).toEqual(['a', 'b']);
    expect((await d.cronGet('b'))?.expression).toBe('0 * * * *');
    expect((await d.cronDelete('a'))?.name).toBe('a');
    expect(await d.cronDelete('a')).toBeNull();
  });

  it('advances only while nextRunMs matches: one firing per occurrence', async () => {
    const d = new MemoryDriver();
    await d.cronUpsert(cron('c'));
    const patch = { nextRunMs: T0 + 120_000, run_count: 1, lastJobId: 'j1' };
    const results = await Promise.all([1, 2, 3].map(() => d.cronAdvance({ name: 'c', expectNextRunMs: T0 + 60_000, patch })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await d.cronGet('c')).toMatchObject(patch);
    expect(await d.cronAdvance({ name: 'missing', expectNextRunMs: null, patch })).toBe(false);
    await d.cronUpsert(cron('n', { nextRunMs: null }));
    expect(await d.cronAdvance({ name: 'n', expectNextRunMs: null, patch: { enabled: false } })).toBe(true);
  });
});

describe('workflows', () => {
  it('creates once, then saves only at the expected version', async () => {
    const d = new MemoryDriver();
    const wf = { id: 'wf1', version: 1, state: 'running', jobs: ['a'] };
    expect(await d.workflowSave({ workflow: wf, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await d.workflowSave({ workflow: wf, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(false);
    expect(await d.workflowSave({ workflow: { ...wf, version: 3 }, expectVersion: 2, now: T0, nowIso: iso(T0) })).toBe(false);
    expect(await d.workflowSave({ workflow: { ...wf, version: 2, state: 'done' }, expectVersion: 1, now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await d.workflowGet('wf1')).toEqual({ ...wf, version: 2, state: 'done' });
    expect(await d.workflowGet('nope')).toBeNull();
  });

  it('inserts jobs with the document, skipping ids that exist, and nothing when the guard fails', async () => {
    const d = new MemoryDriver();
    const [a, b, c] = [stored(), stored(), stored()];
    expect(await d.workflowSave({ workflow: { id: 'w', version: 1 }, expectVersion: null, insert: [a!], now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await d.workflowSave({ workflow: { id: 'w', version: 2 }, expectVersion: 1, insert: [a!, b!], now: T0, nowIso: iso(T0) })).toBe(true);
    expect(await d.workflowSave({ workflow: { id: 'w', version: 3 }, expectVersion: 1, insert: [c!], now: T0, nowIso: iso(T0) })).toBe(false);
    expect((await d.jobCounts({})).available).toBe(2);
    expect(await d.jobGet(c!.job.id)).toBeNull();
  });
});

describe('leases', () => {
  it('grants one owner until expiry, renews for the holder, releases only for the holder', async () => {
    const d = new MemoryDriver();
    expect(await d.leaseAcquire({ name: 'promote', owner: 'a', ttlMs: 100, now: T0 })).toBe(true);
    expect(await d.leaseAcquire({ name: 'promote', owner: 'b', ttlMs: 100, now: T0 + 50 })).toBe(false);
    expect(await d.leaseAcquire({ name: 'promote', owner: 'a', ttlMs: 100, now: T0 + 90 })).toBe(true);
    expect(await d.leaseAcquire({ name: 'promote', owner: 'b', ttlMs: 100, now: T0 + 150 })).toBe(false);
    await d.leaseRelease({ name: 'promote', owner: 'b' });
    expect(await d.leaseAcquire({ name: 'promote', owner: 'b', ttlMs: 100, now: T0 + 150 })).toBe(false);
    await d.leaseRelease({ name: 'promote', owner: 'a' });
    expect(await d.leaseAcquire({ name: 'promote', owner: 'b', ttlMs: 100, now: T0 + 150 })).toBe(true);
    expect(await d.leaseAcquire({ name: 'promote', owner: 'a', ttlMs: 100, now: T0 + 250 })).toBe(true);
  });
});

describe('ping, reset, capabilities', () => {
  it('reset forgets everything', async () => {
    const d = new MemoryDriver();
    await d.ping();
    await d.jobInsert(at([stored()]));
    await d.cronUpsert(cron('c'));
    await d.reset();
    expect((await d.jobList({ limit: 10, offset: 0 })).total).toBe(0);
    expect(await d.jobCounts({})).toMatchObject({ available: 0 });
    expect(await d.queueList()).toEqual([]);
    expect(await d.cronList()).toEqual([]);
    expect((await d.jobClaim({ queues: ['q'], limit: 1, workerId: 'w', now: T0, nowIso: iso(T0) })).jobs).toEqual([]);
  });

  it('declares what it can do', () => {
    const d = new MemoryDriver();
    expect(d.name).toBe('memory');
    expect(d.capabilities).toEqual({ transactionalEnqueue: false, crossProcessEvents: false, uniqueStrength: 'strong', durable: false, orderedCalls: true });
    expect((d as Driver).events).toBeUndefined();
  });
});
