/** The non-job records: queues, workers, crons, workflows, leases; and the store-wide ping and reset. */
import { expect } from 'vitest';
import type { CronRecord } from '@ojskit/core/driver';
import { iso, T0 } from '../context.js';
import type { DriverSuite } from '../harness.js';

/** A cron record firing every minute, next at T0 + 1 min. */
export function cronRecord(name: string, over: Partial<CronRecord> = {}): CronRecord {
  return {
    name,
    expression: '* * * * *',
    timezone: 'UTC',
    overlap_policy: 'allow',
    enabled: true,
    job_template: { type: 'tick', args: [12345678901234567890, 'x'], meta: { m: 1 }, options: { queue: 'q' } },
    created_at: iso(T0),
    next_run_at: iso(T0 + 60_000),
    last_run_at: null,
    run_count: 0,
    nextRunMs: T0 + 60_000,
    ...over,
  };
}

export function registerRecordCases(suite: DriverSuite): void {
  suite.group('queues, workers, crons, workflows, leases', () => {
    suite.test('queue.pause-resume', 'creates a queue record on first pause, and keeps the pause and resume times', async (t) => {
      const q = t.queue();
      expect(await t.driver.queueGet(q)).toBeNull();
      expect(await t.driver.queueSetPaused({ name: q, paused: true, nowIso: iso(T0) })).toEqual({
        name: q,
        paused: true,
        created_at: iso(T0),
        paused_at: iso(T0),
      });
      const resumed = await t.driver.queueSetPaused({ name: q, paused: false, nowIso: iso(T0 + 1) });
      expect(resumed).toEqual({ name: q, paused: false, created_at: iso(T0), paused_at: iso(T0), resumed_at: iso(T0 + 1) });
      expect(await t.driver.queueGet(q)).toEqual(resumed);
      expect(await t.driver.queueList()).toEqual([resumed]);
      // an insert into a known queue keeps its record
      await t.insert([t.job(q)], T0 + 5);
      expect(await t.driver.queueGet(q)).toEqual(resumed);
    });

    suite.test(
      'worker.records-and-directives',
      'records heartbeats, keeps a directive across them, creates a record for a directive, lists and deletes',
      async (t) => {
        const beat = {
          id: 'w1',
          state: 'running',
          last_heartbeat_at: iso(T0),
          lastHeartbeatMs: T0,
          active_job_ids: ['j1'],
          hostname: 'h',
          pid: 7,
          queues: ['a'],
          concurrency: 3,
          labels: { zone: 'z' },
        };
        expect(await t.driver.workerRecord(beat)).toEqual({ ...beat, directive: 'running' });
        expect(await t.driver.workerSetDirective({ id: 'w1', directive: 'quiet', nowIso: iso(T0 + 1), now: T0 + 1 })).toMatchObject({
          id: 'w1',
          directive: 'quiet',
        });
        expect(await t.driver.workerRecord({ ...beat, last_heartbeat_at: iso(T0 + 5), lastHeartbeatMs: T0 + 5, active_job_ids: [] })).toMatchObject({
          directive: 'quiet',
          lastHeartbeatMs: T0 + 5,
          active_job_ids: [],
        });
        expect(await t.driver.workerSetDirective({ id: 'new', directive: 'terminate', nowIso: iso(T0), now: T0 })).toMatchObject({
          id: 'new',
          directive: 'terminate',
          lastHeartbeatMs: T0,
        });
        expect((await t.driver.workerList()).map((w) => [w.id, w.directive]).sort()).toEqual([
          ['new', 'terminate'],
          ['w1', 'quiet'],
        ]);
        await t.driver.workerDelete('w1');
        expect((await t.driver.workerList()).map((w) => w.id)).toEqual(['new']);
      },
    );

    suite.test('cron.crud', 'upserts (created only the first time), gets, lists and deletes crons, keeping the template exactly', async (t) => {
      const [a, b] = [t.name(), t.name()];
      expect(await t.driver.cronUpsert(cronRecord(b))).toEqual({ created: true });
      expect(await t.driver.cronUpsert(cronRecord(a))).toEqual({ created: true });
      expect(await t.driver.cronUpsert(cronRecord(b, { expression: '0 * * * *' }))).toEqual({ created: false });
      expect((await t.driver.cronList()).map((c) => c.name).sort()).toEqual([a, b].sort());
      expect(await t.driver.cronGet(b)).toEqual(cronRecord(b, { expression: '0 * * * *' }));
      expect(await t.driver.cronGet(t.name())).toBeNull();
      expect(await t.driver.cronDelete(a)).toEqual(cronRecord(a));
      expect(await t.driver.cronDelete(a)).toBeNull();
      expect((await t.driver.cronList()).map((c) => c.name)).toEqual([b]);
    });

    suite.test(
      'cron.advance-guard',
      'applies an advance only while nextRunMs equals the expected one (null included), and never to an unknown cron',
      async (t) => {
        const name = t.name();
        await t.driver.cronUpsert(cronRecord(name));
        const patch = { nextRunMs: T0 + 120_000, next_run_at: iso(T0 + 120_000), last_run_at: iso(T0 + 60_000), run_count: 1, lastJobId: 'j1' };
        expect(await t.driver.cronAdvance({ name, expectNextRunMs: T0, patch })).toBe(false);
        expect(await t.driver.cronAdvance({ name, expectNextRunMs: T0 + 60_000, patch })).toBe(true);
        expect(await t.driver.cronAdvance({ name, expectNextRunMs: T0 + 60_000, patch: { run_count: 2 } })).toBe(false);
        expect(await t.driver.cronGet(name)).toEqual({ ...cronRecord(name), ...patch });
        expect(await t.driver.cronAdvance({ name: t.name(), expectNextRunMs: null, patch })).toBe(false);
        const idle = t.name();
        await t.driver.cronUpsert(cronRecord(idle, { nextRunMs: null, next_run_at: null, enabled: false }));
        expect(await t.driver.cronAdvance({ name: idle, expectNextRunMs: null, patch: { enabled: true } })).toBe(true);
        expect((await t.driver.cronGet(idle))?.enabled).toBe(true);
      },
    );

    suite.test('workflow.version-guard', 'creates a workflow once, then saves only at the expected version, storing the document opaquely', async (t) => {
      const id = t.name();
      const doc = { id, version: 1, state: 'running', jobs: ['a'], nested: { deep: [1, { x: null }] } };
      expect(await t.driver.workflowSave({ workflow: doc, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(true);
      expect(await t.driver.workflowSave({ workflow: doc, expectVersion: null, now: T0, nowIso: iso(T0) })).toBe(false);
      expect(await t.driver.workflowSave({ workflow: { ...doc, version: 3 }, expectVersion: 2, now: T0, nowIso: iso(T0) })).toBe(false);
      expect(await t.driver.workflowSave({ workflow: { ...doc, version: 2, state: 'done' }, expectVersion: 1, now: T0, nowIso: iso(T0) })).toBe(true);
      expect(await t.driver.workflowGet(id)).toEqual({ ...doc, version: 2, state: 'done' });
      expect(await t.driver.workflowGet(t.name())).toBeNull();
    });

    suite.test(
      'workflow.inserts-jobs',
      'inserts jobs with the document atomically, skipping ids already stored, and nothing when the guard fails',
      async (t) => {
        const q = t.heldQueue();
        const id = t.name();
        const [a, b, c] = [t.job(q, { state: 'pending', workflow_id: id }), t.job(q, { workflow_id: id }), t.job(q)];
        expect(await t.driver.workflowSave({ workflow: { id, version: 1 }, expectVersion: null, insert: [a], now: T0, nowIso: iso(T0) })).toBe(true);
        expect(await t.driver.workflowSave({ workflow: { id, version: 2 }, expectVersion: 1, insert: [a, b], now: T0, nowIso: iso(T0) })).toBe(true);
        expect(await t.driver.workflowSave({ workflow: { id, version: 3 }, expectVersion: 1, insert: [c], now: T0, nowIso: iso(T0) })).toBe(false);
        expect(await t.driver.jobGet(c.job.id)).toBeNull();
        expect(await t.driver.jobGet(a.job.id)).toEqual(a);
        expect(await t.driver.jobGet(b.job.id)).toEqual(b);
        expect(await t.driver.jobCounts({ queue: q })).toMatchObject({ pending: 1, available: 1 });
        expect(await t.driver.workflowGet(id)).toEqual({ id, version: 2 });
        await t.dispatch.release(q);
        expect(await t.claimIds([q], 5)).toEqual([b.job.id]);
      },
    );

    suite.test(
      'lease.one-owner',
      "grants a lease to one owner until it lapses by the caller's clock, renews it for the holder, and releases it only for the holder",
      async (t) => {
        const name = t.name();
        const take = (owner: string, now: number) => t.driver.leaseAcquire({ name, owner, ttlMs: 100, now });
        expect(await take('a', T0)).toBe(true);
        expect(await take('b', T0 + 50)).toBe(false);
        expect(await take('a', T0 + 90)).toBe(true); // renewed until T0 + 190
        expect(await take('b', T0 + 150)).toBe(false);
        await t.driver.leaseRelease({ name, owner: 'b' });
        expect(await take('b', T0 + 150)).toBe(false);
        await t.driver.leaseRelease({ name, owner: 'a' });
        expect(await take('b', T0 + 150)).toBe(true);
        expect(await take('a', T0 + 251)).toBe(true); // b's lapsed at T0 + 250
        expect(await t.driver.leaseAcquire({ name: t.name(), owner: 'b', ttlMs: 100, now: T0 + 251 })).toBe(true);
      },
    );

    suite.test('store.ping-and-reset', 'answers a ping, and reset forgets every job, queue, worker, cron, workflow and lease', async (t) => {
      const q = t.queue();
      await t.driver.ping();
      await t.insert([t.job(q), t.job(q, { state: 'scheduled' })]);
      await t.driver.cronUpsert(cronRecord(t.name()));
      await t.driver.workerRecord({ id: 'w', state: 'running', last_heartbeat_at: iso(T0), lastHeartbeatMs: T0, active_job_ids: [] });
      const wf = t.name();
      await t.driver.workflowSave({ workflow: { id: wf, version: 1 }, expectVersion: null, now: T0, nowIso: iso(T0) });
      const lease = t.name();
      expect(await t.driver.leaseAcquire({ name: lease, owner: 'a', ttlMs: 60_000, now: T0 })).toBe(true);
      await t.driver.reset();
      expect(await t.driver.jobList({ limit: 10, offset: 0 })).toEqual({ jobs: [], total: 0 });
      expect(Object.values(await t.driver.jobCounts({})).every((n) => n === 0)).toBe(true);
      expect(await t.driver.queueList()).toEqual([]);
      expect(await t.driver.cronList()).toEqual([]);
      expect(await t.driver.workerList()).toEqual([]);
      expect(await t.driver.workflowGet(wf)).toBeNull();
      expect(await t.driver.leaseAcquire({ name: lease, owner: 'b', ttlMs: 60_000, now: T0 + 1 })).toBe(true);
      expect(await t.claimIds([q], 5, { now: T0 + 10 * 3_600_000 })).toEqual([]);
    });
  });
}
