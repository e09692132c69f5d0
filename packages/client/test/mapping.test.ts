/** The mapper between the SDK's camelCase and the protocol's snake_case, case by case. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Job as WireJob, QueueStatsResponse } from '@ojskit/core';
import { batch, chain, NonRetryableError, step, type ArgsOf, type Client, type EnqueueOptions, type Job, type ResultOf, type Worker } from '../src/index.js';
import { cronToWire, enqueueRequestToWire, failureFromThrown, jobFromWire, queueStatsFromWire, timeToWire, workflowToWire } from '../src/mapping/index.js';

const wireJob = (extra: Partial<WireJob> = {}): WireJob => ({
  specversion: '1.0',
  id: '01890a5d-ac96-774b-bcce-b302099a8057',
  type: 'email.send',
  queue: 'default',
  args: ['a'],
  meta: {},
  priority: 0,
  state: 'available',
  attempt: 0,
  max_attempts: 3,
  created_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('enqueue options → wire', () => {
  it('maps every option to its snake_case field under `options`', () => {
    const body = enqueueRequestToWire('report.build', [1], {
      id: '01890a5d-ac96-774b-bcce-b302099a8057',
      queue: 'reports',
      priority: -5,
      scheduledAt: new Date('2026-02-01T00:00:00Z'),
      expiresIn: 90_000,
      retry: {
        maxAttempts: 4,
        initialInterval: 1_500,
        maxInterval: 'PT2M',
        backoffCoefficient: 1.5,
        jitter: false,
        nonRetryableErrors: ['x.*'],
        onExhaustion: 'dead_letter',
        backoffStrategy: 'polynomial',
      },
      unique: { keys: ['type', 'meta'], metaKeys: ['tenant'], argsKeys: ['id'], period: 'PT1H', states: ['available'], onConflict: 'replace_except_schedule' },
      meta: { tenant: 't1' },
      tags: ['a'],
      timeoutMs: 10_000,
      visibilityTimeoutMs: 20_000,
      pending: true,
      schema: 'urn:s',
      attributes: { x_trace: 'abc' },
    });
    expect(body).toEqual({
      x_trace: 'abc',
      type: 'report.build',
      args: [1],
      id: '01890a5d-ac96-774b-bcce-b302099a8057',
      meta: { tenant: 't1' },
      schema: 'urn:s',
      options: {
        queue: 'reports',
        priority: -5,
        scheduled_at: '2026-02-01T00:00:00.000Z',
        expires_at: '+PT1M30S',
        retry: {
          max_attempts: 4,
          initial_interval: 'PT1.5S',
          max_interval: 'PT2M',
          backoff_coefficient: 1.5,
          jitter: false,
          non_retryable_errors: ['x.*'],
          on_exhaustion: 'dead_letter',
          backoff_strategy: 'polynomial',
        },
        unique: {
          keys: ['type', 'meta'],
          meta_keys: ['tenant'],
          args_keys: ['id'],
          period: 'PT1H',
          states: ['available'],
          on_conflict: 'replace_except_schedule',
        },
        tags: ['a'],
        timeout_ms: 10_000,
        visibility_timeout_ms: 20_000,
        pending: true,
      },
    });
  });

  it('sends a delay as a relative time the server resolves, and nothing for absent options', () => {
    expect(enqueueRequestToWire('a', [], { delay: 5_000 })).toEqual({ type: 'a', args: [], options: { scheduled_at: '+PT5S' } });
    expect(enqueueRequestToWire('a', [])).toEqual({ type: 'a', args: [] });
    expect(timeToWire('2026-01-01T01:00:00+01:00')).toBe('2026-01-01T01:00:00+01:00');
  });

  it('rejects contradictory or invalid times before sending anything', () => {
    expect(() => enqueueRequestToWire('a', [], { delay: 1, scheduledAt: new Date() })).toThrow(TypeError);
    expect(() => enqueueRequestToWire('a', [], { expiresIn: 1, expiresAt: new Date() })).toThrow(TypeError);
    expect(() => enqueueRequestToWire('a', [], { scheduledAt: new Date(Number.NaN) })).toThrow(TypeError);
    expect(() => enqueueRequestToWire('a', [], { delay: -1 })).toThrow(RangeError);
  });
});

describe('wire job → view', () => {
  it('reads times as Dates, policies in ms, and keeps unknown attributes apart', () => {
    const job = jobFromWire(
      wireJob({
        state: 'retryable',
        attempt: 1,
        enqueued_at: '2026-01-01T00:00:00.000Z',
        next_attempt_at: '2026-01-01T00:00:02.000Z',
        retry_delay_ms: 2000,
        retry: {
          max_attempts: 3,
          initial_interval: 'PT2S',
          backoff_coefficient: 2,
          max_interval: 'PT5M',
          jitter: true,
          non_retryable_errors: [],
          on_exhaustion: 'discard',
          backoff_strategy: 'exponential',
        },
        unique: { key: ['id'], on_conflict: 'use_existing' },
        error: { code: 'handler_error', type: 'TypeError', message: 'x', attempt: 1, occurred_at: '2026-01-01T00:00:00.000Z' },
        errors: [{ code: 'handler_error', type: 'TypeError', message: 'x', attempt: 1, occurred_at: '2026-01-01T00:00:00.000Z' }],
        timeout: 30,
        worker_id: null as unknown as string,
        x_custom: { a: 1 },
        previous_state: 'active',
      }),
    );
    expect(job.nextAttemptAt).toEqual(new Date('2026-01-01T00:00:02.000Z'));
    expect(job.retry).toMatchObject({ initialIntervalMs: 2000, maxIntervalMs: 300_000 });
    expect(job.unique).toEqual({ argsKeys: ['id'], onConflict: 'ignore' });
    expect(job.error).toEqual({ code: 'handler_error', type: 'TypeError', message: 'x', attempt: 1, occurredAt: new Date('2026-01-01T00:00:00.000Z') });
    expect(job.timeoutMs).toBe(30_000);
    expect(job.workerId).toBeUndefined();
    expect(job.attributes).toEqual({ x_custom: { a: 1 } });
    expect(job.previousState).toBe('active');
    expect('result' in job).toBe(false);
  });

  it('is a plain object with the fields in a fixed order, as an object literal would be', () => {
    const job = jobFromWire(wireJob({ enqueued_at: '2026-01-01T00:00:00.000Z' }));
    expect(Object.getPrototypeOf(job)).toBe(Object.prototype);
    expect(job.constructor).toBe(Object);
    expect(Object.keys(job)).toEqual([
      'id',
      'type',
      'queue',
      'args',
      'meta',
      'priority',
      'state',
      'attempt',
      'maxAttempts',
      'createdAt',
      'errors',
      'tags',
      'attributes',
      'enqueuedAt',
    ]);
    // toStrictEqual compares types too: a copy made by an object literal is the same kind of object
    expect(job).toStrictEqual({ ...job });
    expect(JSON.parse(JSON.stringify(job))).toMatchObject({ id: job.id, createdAt: '2026-01-01T00:00:00.000Z', errors: [], tags: [] });
  });

  it('reads queue stats from whichever of the three shapes a server sends', () => {
    const flat = {
      name: 'q',
      paused: false,
      available: 2,
      active: 1,
      scheduled: 1,
      retryable: 0,
      pending: 0,
      completed: 5,
      discarded: 0,
      cancelled: 0,
    } as unknown as QueueStatsResponse;
    expect(queueStatsFromWire(flat)).toMatchObject({ name: 'q', paused: false, depth: 3, counts: { available: 2, active: 1, completed: 5 } });
  });
});

describe('handler errors → FAIL error', () => {
  it('uses the class name as type, the stack as backtrace, and marks NonRetryableError not retryable', () => {
    class PaymentDeclined extends NonRetryableError {}
    const declined = failureFromThrown(new PaymentDeclined('no funds'));
    expect(declined).toMatchObject({
      code: 'handler_error',
      type: 'PaymentDeclined',
      message: 'no funds',
      retryable: false,
      details: { error_class: 'PaymentDeclined' },
    });
    expect(declined.backtrace!.length).toBeGreaterThan(0);
    expect(declined.backtrace!.length).toBeLessThanOrEqual(50);

    class Unnamed extends Error {}
    expect(failureFromThrown(new Unnamed('x'))).toMatchObject({ type: 'Unnamed', retryable: true });
    const systemError = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    expect(failureFromThrown(systemError).details).toEqual({ error_class: 'Error', code: 'ECONNRESET' });
    expect(failureFromThrown('plain string')).toEqual({ code: 'handler_error', type: 'string', message: 'plain string', retryable: true });
  });
});

describe('workflows and cron → wire', () => {
  it('builds chain and batch bodies with snake_case callbacks and per-step options', () => {
    expect(workflowToWire(chain([step('a', [1], { queue: 'q', name: 'first' }), step('b')], { name: 'wf' }))).toEqual({
      type: 'chain',
      name: 'wf',
      steps: [
        { type: 'a', args: [1], name: 'first', options: { queue: 'q' } },
        { type: 'b', args: [] },
      ],
    });
    expect(workflowToWire(batch([step('a')], { onSuccess: step('ok'), onFailure: step('ko') }))).toEqual({
      type: 'batch',
      jobs: [{ type: 'a', args: [] }],
      callbacks: { on_success: { type: 'ok', args: [] }, on_failure: { type: 'ko', args: [] } },
    });
  });

  it('registers crons in the template form', () => {
    expect(
      cronToWire({ name: 'n', expression: '@daily', overlapPolicy: 'allow', job: { type: 't', options: { queue: 'q', retry: { maxAttempts: 1 } } } }),
    ).toEqual({
      name: 'n',
      expression: '@daily',
      overlap_policy: 'allow',
      job_template: { type: 't', args: [], options: { queue: 'q', retry: { max_attempts: 1 } } },
    });
  });
});

describe('job-type registry', () => {
  interface Jobs {
    'email.send': [to: string, subject: string];
    'report.build': { args: [id: number]; result: { url: string } };
  }

  it('types args and results from the registry', () => {
    expectTypeOf<ArgsOf<Jobs, 'email.send'>>().toEqualTypeOf<[to: string, subject: string]>();
    expectTypeOf<ResultOf<Jobs, 'report.build'>>().toEqualTypeOf<{ url: string }>();
    const check = (client: Client<Jobs>, worker: Worker<Jobs>): void => {
      expectTypeOf(client.enqueue('report.build', [7])).resolves.toEqualTypeOf<Job<[id: number], { url: string }>>();
      worker.register('email.send', ({ args: [to, subject] }) => {
        expectTypeOf(to).toBeString();
        expectTypeOf(subject).toBeString();
      });
      worker.register('report.build', ({ args: [id] }) => ({ url: `/r/${id}` }));
      // @ts-expect-error: the handler must return the registered result
      worker.register('report.build', () => 42);
      // @ts-expect-error: wrong args for the type
      void client.enqueue('report.build', ['seven']);
      // @ts-expect-error: unknown job type
      void client.enqueue('nope', []);
    };
    expect(typeof check).toBe('function');
  });
});

describe('unknown option keys (never dropped)', () => {
  it('throws naming the accepted options and the nearest one', () => {
    const call = (options: unknown) => () => enqueueRequestToWire('a.b', [], options as EnqueueOptions);
    expect(call({ qeueu: 'email' })).toThrow(/Unknown enqueue option 'qeueu'\. Did you mean 'queue'\? Accepted: id, queue, priority/);
    expect(call({ maxAttempts: 7 })).toThrow("Did you mean 'retry.maxAttempts'?");
    expect(call({ runAt: new Date() })).toThrow(/Unknown enqueue option 'runAt'\. Accepted:/);
    expect(call({ retry: { maxAttempt: 7 } })).toThrow("Unknown retry option 'maxAttempt'. Did you mean 'maxAttempts'?");
    expect(call({ unique: { perod: 'PT1M' } })).toThrow("Unknown unique option 'perod'. Did you mean 'period'?");
    expect(() => workflowToWire({ kind: 'chain', steps: [{ type: 'a.b', args: [], options: { qeue: 'x' } as never }] })).toThrow(/'qeue'/);
  });
});
