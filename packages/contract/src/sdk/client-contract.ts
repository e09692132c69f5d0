/**
 * The client contract: the producer API (enqueue and its options, batches, scheduling, get/cancel/activate,
 * waiting, workflows, cron, queues, dead letter) over one transport, checked through the camelCase views.
 * Like the worker contract, it runs in real time against an engine with fast background services.
 */
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { isOjsError, type OjsApi } from '@ojskit/core';
import { batch, chain, Client, group, NonRetryableError, step, WaitTimeoutError, Worker, type Transport } from '@ojskit/client';
import { DispatchView } from '../dispatch-log.js';
import { checkSkips, registerCase, sleep, until } from './support.js';
import type { WorkerContractSubject } from './worker-contract.js';

const CASE_IDS = [
  'enqueue.defaults',
  'enqueue.options',
  'enqueue.pending-activate',
  'enqueue.unique',
  'enqueue-many.all-or-nothing',
  'schedule.delay',
  'schedule.at',
  'cancel.states',
  'wait.events',
  'wait.polling-fallback',
  'wait.timeout',
  'workflow.chain',
  'workflow.group-and-batch',
  'workflow.cancel',
  'cron.lifecycle',
  'queues.pause-resume-stats',
  'dead-letter.list-retry-delete',
  'admin.queue-config-backpressure',
  'admin.rate-limits',
  'admin.enqueue-bulk',
  'admin.jobs-and-bulk',
  'admin.workers-and-stats',
] as const;

export type ClientContractCase = (typeof CASE_IDS)[number];

export interface ClientContractOptions {
  name: string;
  create: () => Promise<WorkerContractSubject>;
  skip?: Partial<Record<ClientContractCase, string>>;
}

/** Expects `promise` to reject with an `OjsError` of `code`. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isOjsError(error) ? error.code : error).toBe(code);
}

/** Registers the client contract suite against one transport. */
export function runClientContract(options: ClientContractOptions): void {
  const skip: Record<string, string> = { ...options.skip };
  checkSkips(`client contract:${options.name}`, CASE_IDS, skip);

  describe(`client contract: ${options.name}`, () => {
    let subject: WorkerContractSubject;
    let client: Client;
    let workers: Worker[] = [];
    let n = 0;
    const runId = Math.random().toString(36).slice(2, 8);
    const freshQueue = (): string => `cc-${runId}-${++n}`;

    let view: DispatchView;

    beforeAll(async () => {
      subject = await options.create();
      client = new Client(subject.api);
      view = new DispatchView(subject.dispatchLog, undefined, `client contract:${options.name}`);
    });

    /** Fails unless no worker took the job: `available`, or with a dispatch log `pending` once the log settled. */
    const expectWaiting = async (id: string): Promise<void> => {
      await view.settle();
      expect((await client.get(id)).state, `job ${id}, taken by no worker`).toBe(view.ready);
    };
    afterAll(async () => {
      await subject?.close();
    });
    afterEach(async () => {
      await Promise.all(workers.map((w) => w.close({ timeoutMs: 0 })));
      workers = [];
    });

    const startWorker = (queue: string, configure: (w: Worker) => void): Worker => {
      const worker = new Worker(subject.api, { queues: [queue], pollWaitMs: 100 });
      worker.on('error', () => {});
      configure(worker);
      workers.push(worker);
      return worker.start();
    };

    /** Claims and fails the next job of a queue through the raw protocol. */
    const failNext = async (queue: string): Promise<void> => {
      const { jobs } = await subject.api.fetch({ queues: [queue], worker_id: 'contract' });
      expect(jobs).toHaveLength(1);
      await subject.api.nack({ job_id: jobs[0]!.id, worker_id: 'contract', error: { code: 'handler_error', message: 'nope', retryable: false } });
    };

    const test = (id: ClientContractCase, title: string, fn: () => Promise<void>, timeoutMs = 10_000): void => registerCase(id, title, skip, fn, timeoutMs);

    test('enqueue.defaults', 'enqueue returns the camelCase view with the protocol defaults', async () => {
      const queue = freshQueue();
      const before = Date.now();
      // Held: the answer is compared with a later read, and a dispatch log would move the job to `pending` between.
      view.hold(queue);
      const job = await client.enqueue('email.send', ['ada@example.com', { lang: 'en' }], { queue });
      expect(job).toMatchObject({
        type: 'email.send',
        queue,
        args: ['ada@example.com', { lang: 'en' }],
        meta: {},
        priority: 0,
        state: 'available',
        attempt: 0,
        maxAttempts: 3,
        errors: [],
        tags: [],
        attributes: {},
      });
      expect(job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(job.createdAt).toBeInstanceOf(Date);
      expect(job.createdAt.getTime()).toBeGreaterThanOrEqual(before - 5_000);
      expect(job.enqueuedAt).toBeInstanceOf(Date);
      expect(await client.get(job.id)).toEqual(job);
    });

    test('enqueue.options', 'every enqueue option reaches the server and reads back through the view', async () => {
      const queue = freshQueue();
      const expiresAt = new Date(Date.now() + 3_600_000);
      const job = await client.enqueue('report.build', [7], {
        queue,
        priority: 7,
        retry: {
          maxAttempts: 5,
          initialInterval: 2_000,
          backoffCoefficient: 3,
          maxInterval: 'PT1M',
          jitter: false,
          nonRetryableErrors: ['auth.*'],
          onExhaustion: 'dead_letter',
          backoffStrategy: 'linear',
        },
        unique: { keys: ['type', 'args'], period: 60_000, onConflict: 'reject' },
        expiresAt,
        meta: { tenant: 'acme', nested: { a: [1, 2] } },
        tags: ['nightly', 'finance'],
        timeoutMs: 45_000,
        visibilityTimeoutMs: 90_000,
        schema: 'urn:example:report',
        attributes: { x_origin: 'contract' },
      });
      const read = await client.get(job.id);
      for (const view of [job, read]) {
        expect(view).toMatchObject({
          queue,
          priority: 7,
          maxAttempts: 5,
          meta: { tenant: 'acme', nested: { a: [1, 2] } },
          tags: ['nightly', 'finance'],
          timeoutMs: 45_000,
          visibilityTimeoutMs: 90_000,
          schema: 'urn:example:report',
          attributes: { x_origin: 'contract' },
        });
        expect(view.retry).toEqual({
          maxAttempts: 5,
          initialIntervalMs: 2_000,
          backoffCoefficient: 3,
          maxIntervalMs: 60_000,
          jitter: false,
          nonRetryableErrors: ['auth.*'],
          onExhaustion: 'dead_letter',
          backoffStrategy: 'linear',
        });
        expect(view.unique).toMatchObject({ keys: ['type', 'args'], onConflict: 'reject' });
        expect(view.expiresAt?.getTime()).toBe(expiresAt.getTime());
      }
    });

    test('enqueue.pending-activate', 'a pending job waits for activate()', async () => {
      const queue = freshQueue();
      const job = await client.enqueue('staged', [], { queue, pending: true });
      expect(job.state).toBe('pending');
      const active = await client.activate(job.id);
      expect(active.state).toBe('available');
      expect(active.previousState).toBe('pending');
      await rejectsWith(client.activate(job.id), 'conflict');
    });

    test('enqueue.unique', 'unique policies: reject raises duplicate, ignore returns the existing job flagged deduplicated', async () => {
      const queue = freshQueue();
      const first = await client.enqueue('sync.account', [42], { queue, unique: { onConflict: 'reject' } });
      await rejectsWith(client.enqueue('sync.account', [42], { queue, unique: { onConflict: 'reject' } }), 'duplicate');
      const again = await client.enqueue('sync.account', [42], { queue, unique: { onConflict: 'ignore' } });
      expect(again.id).toBe(first.id);
      expect(again.deduplicated).toBe(true);
      expect(first.deduplicated).toBeUndefined();
    });

    test('enqueue-many.all-or-nothing', 'enqueueMany stores all jobs in order, or none when one is invalid', async () => {
      const queue = freshQueue();
      const jobs = await client.enqueueMany([
        { type: 'a', args: [1], options: { queue } },
        { type: 'b', args: [2], options: { queue, priority: 5 } },
        { type: 'c', args: [3], options: { queue, delay: 60_000 } },
      ]);
      expect(jobs.map((j) => [j.type, j.state])).toEqual([
        ['a', 'available'],
        ['b', 'available'],
        ['c', 'scheduled'],
      ]);
      const other = freshQueue();
      await rejectsWith(
        client.enqueueMany([
          { type: 'a', args: [], options: { queue: other } },
          { type: 'b', args: [], options: { queue: 'Not A Queue!' } },
        ]),
        'invalid_request',
      );
      const stats = await client.queues.stats(other);
      expect(stats.counts.available + stats.counts.scheduled).toBe(0);
    });

    test('schedule.delay', 'schedule with a delay is measured from the server clock', async () => {
      const queue = freshQueue();
      const before = Date.now();
      const job = await client.schedule('later', [], { delay: 60_000 }, { queue });
      expect(job.state).toBe('scheduled');
      const at = job.scheduledAt!.getTime();
      expect(at).toBeGreaterThanOrEqual(before + 60_000 - 2_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 60_000 + 2_000);
      const soon = await client.schedule('soon', [], { delay: 'PT0.1S' }, { queue });
      expect(soon.state).toBe('scheduled');
      let state = soon.state;
      for (let i = 0; i < 150 && state === 'scheduled'; i++) state = (await sleep(20), await client.get(soon.id)).state;
      await expectWaiting(soon.id);
    });

    test('schedule.at', 'schedule at a Date keeps the time; a past time is available at once', async () => {
      const queue = freshQueue();
      const at = new Date(Date.now() + 3_600_000);
      const job = await client.schedule('at', [], at, { queue });
      expect(job.state).toBe('scheduled');
      expect(job.scheduledAt?.getTime()).toBe(at.getTime());
      const past = await client.enqueue('at', [], { queue, scheduledAt: new Date(Date.now() - 1_000) });
      expect(past.state).toBe('available');
      await expect(client.enqueue('x', [], { delay: 1, scheduledAt: at })).rejects.toThrow(TypeError);
    });

    test('cancel.states', 'cancel returns the cancelled job with its previous state; a finished job cannot be cancelled', async () => {
      const queue = freshQueue();
      const job = await client.enqueue('to.cancel', [], { queue, delay: 60_000 });
      const cancelled = await client.cancel(job.id);
      expect(cancelled).toMatchObject({ id: job.id, state: 'cancelled', previousState: 'scheduled' });
      expect(cancelled.cancelledAt).toBeInstanceOf(Date);
      expect((await client.get(job.id)).state).toBe('cancelled');
      await rejectsWith(client.cancel(job.id), 'conflict');
      await rejectsWith(client.get('01890a5d-ac96-774b-bcce-b302099a8057'), 'not_found');
    });

    test('wait.events', 'waitFor resolves when the job finishes', async () => {
      const queue = freshQueue();
      startWorker(queue, (w) => w.register('double', ({ args: [x] }) => (x as number) * 2));
      const job = await client.enqueue('double', [21], { queue });
      const done = await client.waitFor(job.id, { timeoutMs: 5_000 });
      expect(done).toMatchObject({ state: 'completed', result: 42 });
      expect(done.completedAt).toBeInstanceOf(Date);
    });

    test('wait.polling-fallback', 'waitFor falls back to polling when the transport has no live events', async () => {
      const queue = freshQueue();
      const noEvents = new Proxy(subject.api, {
        get(target, property, receiver) {
          if (property === 'subscribe')
            return () => {
              throw new Error('no live events here');
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as Transport;
      const pollingClient = new Client(noEvents);
      const job = await pollingClient.enqueue('manual', [], { queue });
      const waiting = pollingClient.waitFor(job.id, { timeoutMs: 5_000, pollIntervalMs: 20, states: ['active'] });
      await sleep(50);
      await subject.api.fetch({ queues: [queue], worker_id: 'contract' });
      expect((await waiting).state).toBe('active');
    });

    test('wait.timeout', 'waitFor gives up with a WaitTimeoutError naming the last state', async () => {
      const queue = freshQueue();
      // Held: a dispatch log would move the job on to `pending` at a moment of its own, racing the first read.
      view.hold(queue);
      const job = await client.enqueue('never.runs', [], { queue });
      // Shorter than a read may take on a loaded machine: the wait still names the state its first read finds.
      const error = await client.waitFor(job.id, { timeoutMs: 50 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WaitTimeoutError);
      expect((error as WaitTimeoutError).lastState).toBe(view.readyIn(queue));
    });

    test('workflow.chain', 'a chain runs its steps in order, passing earlier results on', async () => {
      const queue = freshQueue();
      const seen: unknown[][] = [];
      startWorker(queue, (w) =>
        w
          .register('fetch', () => 'page')
          .register('parse', ({ job }) => (seen.push(job.parentResults ?? []), 'parsed'))
          .register('store', ({ job }) => (seen.push(job.parentResults ?? []), 'stored')),
      );
      const started = await client.workflows.start(chain([step('fetch', ['u']), step('parse'), step('store')], { name: 'ingest', options: { queue } }));
      expect(started).toMatchObject({ kind: 'chain', name: 'ingest', state: 'running', total: 3 });
      await until(10_000, 'the chain to complete', () => seen.length === 2);
      let wf = await client.workflows.get(started.id);
      for (let i = 0; i < 100 && wf.state === 'running'; i++) wf = (await sleep(20), await client.workflows.get(started.id));
      expect(wf.state).toBe('completed');
      expect(wf.completed).toBe(3);
      expect(seen).toEqual([['page'], ['page', 'parsed']]);
    });

    test('workflow.group-and-batch', 'a group runs independently; a batch fires its callback once every member is done', async () => {
      const queue = freshQueue();
      const reports: unknown[] = [];
      startWorker(queue, (w) =>
        w
          .register('thumb', ({ args: [n] }) => {
            if (n === 2) throw new NonRetryableError('bad image');
            return `thumb-${String(n)}`;
          })
          .register('report', ({ job }) => void reports.push(job.parentResults)),
      );
      const g = await client.workflows.start(group([step('thumb', [1]), step('thumb', [3])], { options: { queue } }));
      expect(g.kind).toBe('group');
      const b = await client.workflows.start(
        // Callbacks are built from their own item only (protocol: queue from its options, else `default`).
        batch([step('thumb', [1]), step('thumb', [2])], { onComplete: step('report', [], { queue }) }, { options: { queue } }),
      );
      await until(10_000, 'the batch callback', () => reports.length === 1);
      let groupView = await client.workflows.get(g.id);
      for (let i = 0; i < 100 && groupView.state === 'running'; i++) groupView = (await sleep(20), await client.workflows.get(g.id));
      expect(groupView.state).toBe('completed');
      const batchView = await client.workflows.get(b.id);
      expect(batchView.state).toBe('failed');
      expect(batchView.failed).toBe(1);
      await sleep(100);
      expect(reports).toHaveLength(1);
      expect(() => batch([step('x')], {})).toThrow(TypeError);
    });

    test('workflow.cancel', 'cancelling a workflow cancels its unfinished members', async () => {
      const queue = freshQueue();
      const wf = await client.workflows.start(group([step('idle', [], { queue }), step('idle', [], { queue })]));
      const cancelled = await client.workflows.cancel(wf.id);
      expect(cancelled.state).toBe('cancelled');
      for (const member of cancelled.members) {
        if (member.jobId) expect((await client.get(member.jobId)).state).toBe('cancelled');
      }
      await rejectsWith(client.workflows.cancel(wf.id), 'conflict');
    });

    test('cron.lifecycle', 'cron register (upsert), list, get, disable, enable and remove', async () => {
      const name = `cron-${runId}-${++n}`;
      const queue = freshQueue();
      const created = await client.cron.register({
        name,
        expression: '*/5 * * * *',
        timezone: 'Europe/Paris',
        description: 'every five minutes',
        job: { type: 'cleanup', args: [1], options: { queue, priority: 3 } },
      });
      expect(created).toMatchObject({
        name,
        expression: '*/5 * * * *',
        timezone: 'Europe/Paris',
        overlapPolicy: 'skip',
        enabled: true,
        created: true,
        runCount: 0,
      });
      expect(created.nextRunAt).toBeInstanceOf(Date);
      expect(created.job).toMatchObject({ type: 'cleanup', args: [1], options: { queue, priority: 3 } });
      const replaced = await client.cron.register({ name, expression: '@hourly', job: { type: 'cleanup' } });
      expect(replaced.created).toBe(false);
      expect((await client.cron.list()).map((c) => c.name)).toContain(name);
      expect((await client.cron.get(name)).expression).toBe('@hourly');
      const disabled = await client.cron.disable(name);
      expect(disabled).toMatchObject({ enabled: false, nextRunAt: null });
      expect((await client.cron.enable(name)).nextRunAt).toBeInstanceOf(Date);
      await client.cron.remove(name);
      await rejectsWith(client.cron.get(name), 'not_found');
    });

    test('queues.pause-resume-stats', 'a paused queue keeps accepting jobs but delivers none until resumed', async () => {
      const queue = freshQueue();
      await client.queues.pause(queue);
      let stats = await client.queues.stats(queue);
      expect(stats.paused).toBe(true);
      await client.enqueue('held', [], { queue });
      const { jobs } = await (subject.api as OjsApi).fetch({ queues: [queue], worker_id: 'contract' });
      expect(jobs).toEqual([]);
      await client.queues.resume(queue);
      await view.settle();
      stats = await client.queues.stats(queue);
      expect(stats).toMatchObject({ name: queue, paused: false, depth: 1 });
      expect(stats.counts).toMatchObject(view.counts({ available: 1 }));
      expect((await client.queues.list({ limit: 1000 })).map((q) => q.name)).toContain(queue);
    });

    test('dead-letter.list-retry-delete', 'dead-lettered jobs can be listed, retried and deleted', async () => {
      const queue = freshQueue();
      const policy = { retry: { maxAttempts: 1, onExhaustion: 'dead_letter' as const } };
      const first = await client.enqueue('pay', [1], { queue, ...policy });
      await failNext(queue);
      const { jobs, pagination } = await client.deadLetter.list({ queue });
      expect(jobs.map((j) => j.id)).toEqual([first.id]);
      expect(pagination.total).toBe(1);
      expect(jobs[0]!.errors[0]).toMatchObject({ code: 'handler_error', message: 'nope' });
      const retried = await client.deadLetter.retry(first.id);
      expect(retried).toMatchObject({ state: 'available', attempt: 0 });
      await failNext(queue);
      expect((await client.deadLetter.stats()).total).toBeGreaterThanOrEqual(1);
      await client.deadLetter.delete(first.id);
      await rejectsWith(client.get(first.id), 'not_found');
      expect((await client.deadLetter.list({ queue })).jobs).toEqual([]);
    });

    test('admin.queue-config-backpressure', 'a configured bound refuses enqueues past it with QUEUE_FULL', async () => {
      const queue = freshQueue();
      expect(await client.queues.config(queue)).toMatchObject({ maxDepth: null, warningThreshold: 0.8, retryAfterSeconds: 1, concurrency: null });
      expect((await client.queues.config(queue)).ageBoost).toBeNull();
      const config = await client.queues.configure(queue, {
        maxDepth: 2,
        retryAfterSeconds: 4,
        concurrency: 3,
        retention: { completedMs: 1_000 },
        ageBoost: { intervalMs: 5_000 },
        history: false,
      });
      expect(config).toMatchObject({
        maxDepth: 2,
        retryAfterSeconds: 4,
        concurrency: 3,
        retention: { completedMs: 1_000 },
        ageBoost: { intervalMs: 5_000 },
        history: false,
      });
      const first = await client.enqueue('bounded', [], { queue });
      await client.enqueue('bounded', [], { queue });
      // The queue opted out of history: where the backend records it, the job has no line and says so.
      if ((await subject.api.manifest()).capabilities['job_history'] === true) {
        expect(await client.history(first.id)).toEqual({ jobId: first.id, transitions: [], dropped: 0, recording: false });
      }
      const error = await client.enqueue('bounded', [], { queue }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isOjsError(error) && [error.code, error.status, error.details?.retry_after_seconds]).toEqual(['QUEUE_FULL', 429, 4]);
    });

    test('admin.rate-limits', 'rateLimit on enqueue and on the queue config; rateLimits() shows the window and keys', async () => {
      const queue = freshQueue();
      const key = `${queue}-key`;
      const config = await client.queues.configure(queue, { rateLimit: { maxPerSecond: 0.2 } });
      expect(config.rateLimit).toEqual({ maxPerSecond: 0.2, concurrency: null });
      const job = await client.enqueue('limited', [], { queue, rateLimit: { concurrency: 1, key } });
      await client.enqueue('limited', [], { queue, rateLimit: { concurrency: 1, key } });
      expect((await subject.api.fetch({ queues: [queue], count: 2, worker_id: 'contract' })).jobs.map((j) => j.id)).toEqual([job.id]);
      const view = await client.queues.rateLimits(queue);
      expect(view).toMatchObject({ queue, queueLimit: { maxPerSecond: 0.2, concurrency: null }, active: 1, keys: [{ key, active: 1, concurrency: 1 }] });
      expect(view.window.intervalMs).toBe(5_000);
      expect(view.window.nextAllowedAt!.getTime() - view.window.lastClaimAt!.getTime()).toBe(5_000);
      await expect(client.enqueue('limited', [], { queue, rateLimit: { maxPerSec: 1 } as never })).rejects.toThrow(/Unknown rate limit option 'maxPerSec'/);
    });

    test('admin.enqueue-bulk', 'bulk enqueue reports each job; atomic stores all or nothing', async () => {
      const queue = freshQueue();
      const result = await client.enqueueBulk([
        { type: 'bulk.ok', args: [1], options: { queue } },
        { type: 'Not A Type', args: [], options: { queue } },
      ]);
      expect(result).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
      expect(result.items.map((i) => i.status)).toEqual(['created', 'failed']);
      await rejectsWith(
        client.enqueueBulk(
          [
            { type: 'bulk.ok', args: [], options: { queue } },
            { type: 'Bad', args: [] },
          ],
          { atomicity: 'atomic' },
        ),
        'invalid_request',
      );
      expect((await client.queues.stats(queue)).depth).toBe(1);
    });

    test('admin.jobs-and-bulk', 'jobs are listed by filter, retried, and cancelled or deleted in bulk', async () => {
      const queue = freshQueue();
      const a = await client.enqueue('listed', [1], { queue });
      const b = await client.enqueue('listed', [2], { queue });
      const { jobs, page } = await client.jobs.list({ queue, perPage: 10 });
      expect(jobs.map((j) => j.id)).toEqual([b.id, a.id]);
      expect(page).toEqual({ total: 2, page: 1, perPage: 10 });
      const cancelled = await client.jobs.cancelMany({ ids: [a.id] });
      expect(cancelled.items).toEqual([{ jobId: a.id, status: 'cancelled' }]);
      const all = await client.jobs.cancelMany({ filter: { queue } });
      expect(all.items.map((i) => [i.jobId, i.status])).toEqual([[b.id, 'cancelled']]);
      const revived = await client.jobs.retryMany({ ids: [a.id] });
      expect(revived.items[0]).toMatchObject({ status: 'failed', error: { code: 'conflict' } });
      const deleted = await client.jobs.deleteMany({ filter: { queue } });
      expect(deleted).toMatchObject({ succeeded: 2, failed: 0 });
      expect((await client.jobs.list({ queue })).jobs).toEqual([]);
    });

    test('admin.workers-and-stats', 'a running worker is listed; quiet reaches it on its next heartbeat', async () => {
      const queue = freshQueue();
      const directives: string[] = [];
      const worker = new Worker(subject.api, { queues: [queue], pollWaitMs: 100, heartbeatIntervalMs: 50 });
      worker.on('error', () => {});
      worker.on('directive', (d) => directives.push(d));
      workers.push(worker.start());
      let info;
      for (let tries = 0; tries < 100 && !info; tries++) {
        info = (await client.workers.list({ perPage: 100 })).workers.find((w) => w.id === worker.workerId);
        if (!info) await sleep(50);
      }
      expect(info).toMatchObject({ id: worker.workerId, state: 'running', directive: 'running', stale: false, queues: [queue] });
      expect((await client.stats()).workers).toBeGreaterThanOrEqual(1);
      await client.workers.quiet(worker.workerId);
      await until(10_000, 'the quiet directive', () => directives.includes('quiet'));
      // a long-poll already out when the directive came (pollWaitMs 100) may still return; none follows it
      await sleep(300);
      await client.enqueue('ignored', [], { queue });
      await sleep(300);
      await view.settle();
      expect((await client.queues.stats(queue)).counts).toMatchObject(view.counts({ available: 1 }));
    });
  });
}
