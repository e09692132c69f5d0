import { describe, expect, it } from 'vitest';
import { OjsError } from '../src/index.js';
import { UUIDV7_PATTERN, toTimestamp } from '../src/entries/formats.js';
import { DEFAULT_EXECUTION_TIMEOUT_MS, DEFAULT_VISIBILITY_TIMEOUT_MS, parseEnqueue } from '../src/entries/schemas.js';
import { expectOjsError } from './expect-ojs-error.js';

const NOW = Date.UTC(2026, 0, 15, 10, 30, 0, 0);
const NOW_TS = toTimestamp(NOW);
const ID = '0196b2f0-8e4a-7c3d-9f12-3456789abcde';
const base = { type: 'email.send', args: ['a@b.c'] };
const parse = (body: Record<string, unknown>) => parseEnqueue({ ...base, ...body }, NOW);
const invalid = (body: unknown, field?: string) => {
  const err = expectOjsError(() => parseEnqueue(body, NOW), 'invalid_request', 400);
  expect(err.retryable).toBe(false);
  if (field) expect(err.details?.field).toBe(field);
  return err;
};

describe('parseEnqueue defaults', () => {
  it('fills the protocol defaults and nothing else', () => {
    const { job, retryPolicy, visibilityMs, timeoutMs, dueAt, expiresAt, unique } = parseEnqueue(base, NOW);
    expect(job).toEqual({
      specversion: '1.0',
      id: job.id,
      type: 'email.send',
      queue: 'default',
      args: ['a@b.c'],
      meta: {},
      priority: 0,
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      created_at: NOW_TS,
      enqueued_at: NOW_TS,
    });
    expect(job.id).toMatch(UUIDV7_PATTERN);
    expect(retryPolicy.maxAttempts).toBe(3);
    expect(visibilityMs).toBe(DEFAULT_VISIBILITY_TIMEOUT_MS);
    expect(timeoutMs).toBe(DEFAULT_EXECUTION_TIMEOUT_MS);
    expect(DEFAULT_VISIBILITY_TIMEOUT_MS).toBe(1_800_000);
    expect(DEFAULT_EXECUTION_TIMEOUT_MS).toBe(1_800_000);
    expect([dueAt, expiresAt, unique]).toEqual([undefined, undefined, undefined]);
  });

  it('uses server defaults for visibility and execution timeout when given', () => {
    const parsed = parseEnqueue(base, NOW, { visibilityTimeoutMs: 5_000, executionTimeoutMs: 7_000 });
    expect([parsed.visibilityMs, parsed.timeoutMs]).toEqual([5_000, 7_000]);
  });

  it('generates a fresh id per job and keeps a client id', () => {
    expect(parseEnqueue(base, NOW).job.id).not.toBe(parseEnqueue(base, NOW).job.id);
    expect(parse({ id: ID }).job.id).toBe(ID);
  });

  it('keeps args exactly as sent', () => {
    const args = [1, 2.5, 'x', null, true, [3, [4]], { z: 1, a: { b: [] } }];
    expect(parse({ args }).job.args).toEqual(args);
    expect(parse({ args: [] }).job.args).toEqual([]);
  });

  it('accepts specversion "1.0" and rejects any other', () => {
    expect(parse({ specversion: '1.0' }).job.specversion).toBe('1.0');
    invalid({ ...base, specversion: '2.0' }, 'specversion');
  });
});

describe('flat vs options form', () => {
  it('reads the flat form', () => {
    const { job } = parse({ queue: 'mail', priority: 5, tags: ['a'] });
    expect([job.queue, job.priority, job.tags]).toEqual(['mail', 5, ['a']]);
  });

  it('reads the options form', () => {
    const { job } = parse({ options: { queue: 'mail', priority: -5, tags: ['b'] } });
    expect([job.queue, job.priority, job.tags]).toEqual(['mail', -5, ['b']]);
  });

  it('lets options win when both are given', () => {
    const { job } = parse({
      queue: 'flat',
      priority: 1,
      tags: ['flat'],
      scheduled_at: '+PT1M',
      options: { queue: 'opt', priority: 2, tags: ['opt'], scheduled_at: '+PT2M' },
    });
    expect([job.queue, job.priority, job.tags, job.scheduled_at]).toEqual(['opt', 2, ['opt'], toTimestamp(NOW + 120_000)]);
  });

  it('does not let an invalid flat value leak past a valid options value', () => {
    expect(parse({ queue: 'Bad Queue', options: { queue: 'good' } }).job.queue).toBe('good');
  });

  it('rejects options that is not an object', () => {
    invalid({ ...base, options: [] }, 'options');
    invalid({ ...base, options: 'x' }, 'options');
  });

  it('still reads fields a prototype supplies when the own keys are only the common ones', () => {
    const body = Object.assign(Object.create({ scheduled_at: '+PT1M' }) as Record<string, unknown>, base);
    expect(parseEnqueue(body, NOW).job.scheduled_at).toBe(toTimestamp(NOW + 60_000));
    const options = Object.assign(Object.create({ tags: ['inherited'] }) as Record<string, unknown>, { queue: 'mail' });
    expect(parse({ options }).job.tags).toEqual(['inherited']);
  });
});

describe('scheduling', () => {
  it('a future scheduled_at makes the job scheduled, with no enqueued_at', () => {
    const at = '2026-01-15T11:00:00Z';
    const parsed = parse({ scheduled_at: at });
    expect(parsed.job.state).toBe('scheduled');
    expect(parsed.job.scheduled_at).toBe(at);
    expect(parsed.job).not.toHaveProperty('enqueued_at');
    expect(parsed.dueAt).toBe(Date.parse(at));
  });

  it('a scheduled_at at or before now makes the job available at once', () => {
    for (const at of [NOW_TS, '2026-01-15T10:00:00Z']) {
      const parsed = parse({ scheduled_at: at });
      expect(parsed.job.state).toBe('available');
      expect(parsed.job.enqueued_at).toBe(NOW_TS);
      expect(parsed.job.scheduled_at).toBe(at);
      expect(parsed.dueAt).toBeUndefined();
    }
  });

  it('delay_until is an alias of scheduled_at', () => {
    const parsed = parse({ options: { delay_until: '+PT10S' } });
    expect(parsed.job.state).toBe('scheduled');
    expect(parsed.job.scheduled_at).toBe(toTimestamp(NOW + 10_000));
    expect(parsed.dueAt).toBe(NOW + 10_000);
    expect(parsed.job).not.toHaveProperty('delay_until');
  });

  it('echoes client timestamps verbatim, offset included', () => {
    const at = '2026-01-15T13:00:00+02:00';
    expect(parse({ options: { scheduled_at: at, expires_at: '2026-01-16T00:00:00-05:00' } }).job).toMatchObject({
      scheduled_at: at,
      expires_at: '2026-01-16T00:00:00-05:00',
    });
  });

  it('resolves relative expires_at and reports it', () => {
    const parsed = parse({ options: { expires_at: '+PT1M' } });
    expect(parsed.job.expires_at).toBe(toTimestamp(NOW + 60_000));
    expect(parsed.expiresAt).toBe(NOW + 60_000);
  });

  it('pending=true enqueues into pending without enqueued_at (flat and options)', () => {
    for (const body of [{ pending: true }, { options: { pending: true } }, { options: { pending: true, scheduled_at: '+PT1H' } }]) {
      const { job } = parse(body);
      expect(job.state).toBe('pending');
      expect(job).not.toHaveProperty('enqueued_at');
    }
    expect(parse({ options: { pending: false } }).job.state).toBe('available');
    invalid({ ...base, options: { pending: 'yes' } }, 'options.pending');
  });
});

describe('validation table (envelope.md)', () => {
  it.each([null, [], 'str', 3, true])('body %j must be an object → 400', (body) => {
    invalid(body);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['number', 7],
    ['uppercase', 'Email.send'],
    ['leading digit', '1email'],
    ['empty segment', 'email..send'],
    ['trailing dot', 'email.'],
    ['space', 'email send'],
    ['256 chars', 'a'.repeat(256)],
  ])('type %s → 400', (_label, type) => {
    invalid({ type, args: [] }, 'type');
  });

  it.each(['a', 'email.send', 'a-b.c_d', 'test.fail_once', 'a'.repeat(255)])('type %j is accepted', (type) => {
    expect(parseEnqueue({ type, args: [] }, NOW).job.type).toBe(type);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['object', {}],
    ['string', 'x'],
    ['number', 1],
    ['boolean', true],
  ])('args %s → 400', (_label, args) => {
    invalid({ type: 'a', args }, 'args');
  });

  it.each([
    ['empty', ''],
    ['v4', '550e8400-e29b-41d4-a716-446655440000'],
    ['uppercase', ID.toUpperCase()],
    ['null', null],
    ['number', 1],
  ])('id %s → 400', (_label, id) => {
    invalid({ ...base, id }, 'id');
  });

  it.each(['Default', '-a', '.a', '', 'a_b', 'a b', 'a'.repeat(129), 7])('queue %j → 400', (queue) => {
    invalid({ ...base, queue });
    invalid({ ...base, options: { queue } }, 'options.queue');
  });

  it.each(['a', '0q', 'a.b-c', 'a'.repeat(128)])('queue %j is accepted', (queue) => {
    expect(parse({ queue }).job.queue).toBe(queue);
  });

  it.each([101, -101, 1.5, '5', null, 'high'])('priority %j → 400', (priority) => {
    invalid({ ...base, priority }, 'priority');
    invalid({ ...base, options: { priority } }, 'options.priority');
  });

  it.each([
    [100, 100],
    [-100, -100],
    ['HIGH', 10],
    ['NORMAL', 0],
    ['LOW', -10],
  ])('priority %j → stored %i', (priority, stored) => {
    expect(parse({ options: { priority } }).job.priority).toBe(stored);
    expect(parse({ priority }).job.priority).toBe(stored);
  });

  it.each([[[]], ['x'], [null], [3]])('meta %j → 400', (meta) => {
    invalid({ ...base, meta }, 'meta');
  });

  it.each(['scheduled_at', 'delay_until', 'expires_at'])('%s without offset, malformed or not a string → 400', (key) => {
    for (const value of ['2026-01-15T11:00:00', '2026-01-15', 'soon', '+P', 1768475000000]) {
      invalid({ ...base, options: { [key]: value } }, `options.${key}`);
    }
  });

  it('flat scheduled_at/expires_at without offset → 400', () => {
    invalid({ ...base, scheduled_at: '2026-01-15T11:00:00' }, 'scheduled_at');
    invalid({ ...base, expires_at: '2026-01-15T11:00:00' }, 'expires_at');
  });

  it.each([
    [{ options: { timeout_ms: -1 } }, 'options.timeout_ms'],
    [{ options: { timeout_ms: 1.5 } }, 'options.timeout_ms'],
    [{ options: { timeout_ms: '10' } }, 'options.timeout_ms'],
    [{ timeout: -1 }, 'timeout'],
    [{ timeout: '30' }, 'timeout'],
    [{ options: { visibility_timeout_ms: 0 } }, 'options.visibility_timeout_ms'],
    [{ options: { visibility_timeout_ms: -5 } }, 'options.visibility_timeout_ms'],
    [{ options: { visibility_timeout_ms: 2.5 } }, 'options.visibility_timeout_ms'],
  ])('timeouts %j → 400', (body, field) => {
    invalid({ ...base, ...body }, field);
  });

  it.each([['a'], [[1]], [{}], [['a', null]]])('tags %j → 400', (tags) => {
    invalid({ ...base, tags }, 'tags');
    invalid({ ...base, options: { tags } }, 'options.tags');
  });

  it.each([
    { max_attempts: -1 },
    { max_attempts: 1.5 },
    { initial_interval: 'soon' },
    { initial_interval: 'PT0S' },
    { max_interval: 'PT1S', initial_interval: 'PT10S' },
    { backoff_coefficient: 0.5 },
    { backoff_strategy: 'fibonacci' },
    { on_exhaustion: 'explode' },
    { jitter: 'yes' },
    { non_retryable_errors: [1] },
    'not-an-object',
  ])('retry %j → 422 validation_error naming the field', (retry) => {
    for (const body of [
      { ...base, retry },
      { ...base, options: { retry } },
      { ...base, options: { retry_policy: retry } },
    ]) {
      const err = expectOjsError(() => parseEnqueue(body, NOW), 'validation_error', 422);
      expect(err.type).toBe('validation_error');
      expect(err.toBody().type).toBe('validation_error');
      expect(err.retryable).toBe(false);
      expect(err.message).toMatch(/retry/);
    }
  });

  it.each([
    { on_conflict: 'explode' },
    { keys: ['type', 'colour'] },
    { keys: ['meta'] },
    { states: ['running'] },
    { period: 'soon' },
    { key: 'user_id' },
    'not-an-object',
  ])('unique %j → 400 invalid_request', (unique) => {
    invalid({ ...base, options: { unique } });
    invalid({ ...base, unique });
  });

  it('meta over 64 KiB → 413 payload_too_large', () => {
    const meta = { blob: 'x'.repeat(70 * 1024) };
    const err = expectOjsError(() => parse({ meta }), 'payload_too_large', 413);
    expect(err.retryable).toBe(false);
    expectOjsError(() => parse({ options: { metadata: meta } }), 'payload_too_large', 413);
    expect(parse({ meta: { blob: 'x'.repeat(60 * 1024) } }).job.meta.blob).toHaveLength(60 * 1024);
  });

  it('accepts a 1 MiB envelope (args) without complaint', () => {
    const big = 'x'.repeat(1_000_000);
    expect(parse({ args: [big] }).job.args[0]).toBe(big);
  });

  it('schema must be a string and is preserved', () => {
    expect(parse({ schema: 'urn:ojs:schema:email.send:v1' }).job.schema).toBe('urn:ojs:schema:email.send:v1');
    invalid({ ...base, schema: 5 }, 'schema');
  });

  it('rate_limit is validated, echoed and handed on (the engine refuses it where the driver lacks rateLimiting)', () => {
    const parsed = parse({ options: { rate_limit: { max_per_second: 2.5, concurrency: 2, key: 'stripe' } } });
    expect(parsed.rateLimit).toEqual({ max_per_second: 2.5, concurrency: 2, key: 'stripe' });
    expect(parsed.job.rate_limit).toEqual({ max_per_second: 2.5, concurrency: 2, key: 'stripe' });
    expect(parse({ rate_limit: { concurrency: 1 } }).rateLimit).toEqual({ concurrency: 1 });
    for (const [rate_limit, field] of [
      [{ max_per_second: 0 }, 'options.rate_limit.max_per_second'],
      [{ concurrency: 2.5 }, 'options.rate_limit.concurrency'],
      [{ concurrency: 1, key: 'k'.repeat(256) }, 'options.rate_limit.key'],
      [{ key: 'k' }, 'options.rate_limit.key'],
      [{ concurrency: 1, burst: 2 }, 'options.rate_limit.burst'],
      [{}, 'options.rate_limit'],
    ] as const) {
      invalid({ ...base, options: { rate_limit } }, field);
    }
  });

  it('field errors carry details {field, expected, received, validation}', () => {
    const err = invalid({ ...base, queue: 'Bad' }, 'queue');
    expect(err.details).toMatchObject({ field: 'queue', received: 'Bad' });
    expect(typeof err.details?.expected).toBe('string');
    expect(err.details).toHaveProperty('validation');
  });
});

describe('first failing rule wins', () => {
  const oversizedMeta = { blob: 'x'.repeat(70 * 1024) };
  it.each<[string, unknown, string, number, string | undefined]>([
    ['type before args', { type: 'Bad', args: 'x' }, 'invalid_request', 400, 'type'],
    ['args before id', { type: 'a', args: 'x', id: 'nope' }, 'invalid_request', 400, 'args'],
    ['id before queue', { ...base, id: 'nope', queue: 'Bad' }, 'invalid_request', 400, 'id'],
    ['queue before priority', { ...base, queue: 'Bad', priority: 500 }, 'invalid_request', 400, 'queue'],
    ['priority before meta', { ...base, priority: 500, meta: [] }, 'invalid_request', 400, 'priority'],
    ['meta before timestamps', { ...base, meta: [], scheduled_at: 'x' }, 'invalid_request', 400, 'meta'],
    ['timestamps before timeouts', { ...base, scheduled_at: 'x', options: { timeout_ms: -1 } }, 'invalid_request', 400, 'scheduled_at'],
    ['timeouts before tags', { ...base, tags: 'x', options: { timeout_ms: -1 } }, 'invalid_request', 400, 'options.timeout_ms'],
    ['tags (400) before retry (422)', { ...base, tags: 'x', retry: { max_attempts: -1 } }, 'invalid_request', 400, 'tags'],
    ['queue (400) before retry (422)', { ...base, queue: 'Bad', retry: { max_attempts: -1 } }, 'invalid_request', 400, 'queue'],
    ['retry (422) before unique (400)', { ...base, retry: { max_attempts: -1 }, unique: { on_conflict: 'x' } }, 'validation_error', 422, 'retry.max_attempts'],
    ['unique (400) before meta size (413)', { ...base, meta: oversizedMeta, unique: { on_conflict: 'x' } }, 'invalid_request', 400, undefined],
    ['retry (422) before meta size (413)', { ...base, meta: oversizedMeta, retry: { max_attempts: -1 } }, 'validation_error', 422, undefined],
  ])('%s', (_label, body, code, status, field) => {
    const err = expectOjsError(() => parseEnqueue(body, NOW), code, status);
    if (field) expect(err.details?.field).toBe(field);
  });
});

describe('attributes', () => {
  it('keeps unknown top-level attributes verbatim', () => {
    const { job } = parse({ x_trace: { a: [1, { b: null }] }, source: 'crm', count: 0, flag: false });
    expect(job).toMatchObject({ x_trace: { a: [1, { b: null }] }, source: 'crm', count: 0, flag: false });
  });

  it('ignores system-managed keys sent by the client', () => {
    const sent = {
      state: 'completed',
      attempt: 7,
      max_attempts: 9,
      created_at: '2020-01-01T00:00:00Z',
      enqueued_at: '2020-01-01T00:00:00Z',
      started_at: '2020-01-01T00:00:00Z',
      completed_at: '2020-01-01T00:00:00Z',
      cancelled_at: '2020-01-01T00:00:00Z',
      discarded_at: '2020-01-01T00:00:00Z',
      error: { code: 'x' },
      errors: [{ code: 'x' }],
      result: 42,
      worker_id: 'w1',
      retry_delay_ms: 5,
      next_attempt_at: '2020-01-01T00:00:00Z',
      parent_results: [1],
      workflow_id: ID,
    };
    const { job } = parse(sent);
    expect(job).toMatchObject({ state: 'available', attempt: 0, max_attempts: 3, created_at: NOW_TS, enqueued_at: NOW_TS });
    for (const key of [
      'started_at',
      'completed_at',
      'cancelled_at',
      'discarded_at',
      'error',
      'errors',
      'result',
      'worker_id',
      'retry_delay_ms',
      'next_attempt_at',
      'parent_results',
      'workflow_id',
    ]) {
      expect(job, key).not.toHaveProperty(key);
    }
  });

  it('keeps meta keys unmodified and merges options.metadata into meta (its keys win)', () => {
    const { job } = parse({ meta: { a: 1, 'trace.id': 'x', Nested: { k: [1] } }, options: { metadata: { a: 2, b: 3 } } });
    expect(job.meta).toEqual({ a: 2, 'trace.id': 'x', Nested: { k: [1] }, b: 3 });
    invalid({ ...base, options: { metadata: [] } }, 'options.metadata');
  });

  it('does not alias the caller meta object', () => {
    const meta = { a: 1 };
    parse({ meta }).job.meta.a = 2;
    expect(meta.a).toBe(1);
  });
});

describe('timeouts', () => {
  it('flat timeout (seconds) → timeout_ms, and timeout is echoed', () => {
    const parsed = parse({ timeout: 30 });
    expect(parsed.job.timeout_ms).toBe(30_000);
    expect(parsed.job.timeout).toBe(30);
    expect(parsed.timeoutMs).toBe(30_000);
  });

  it('options.timeout_ms is stored without a timeout echo', () => {
    const parsed = parse({ options: { timeout_ms: 5_000 } });
    expect(parsed.job.timeout_ms).toBe(5_000);
    expect(parsed.job).not.toHaveProperty('timeout');
    expect(parsed.timeoutMs).toBe(5_000);
  });

  it('options.timeout_ms wins over flat timeout; timeout still echoed because the client sent it', () => {
    const parsed = parse({ timeout: 30, options: { timeout_ms: 5_000 } });
    expect([parsed.job.timeout_ms, parsed.job.timeout, parsed.timeoutMs]).toEqual([5_000, 30, 5_000]);
  });

  it('timeout_ms 0 means the server default', () => {
    const parsed = parseEnqueue({ ...base, options: { timeout_ms: 0 } }, NOW, { executionTimeoutMs: 9_000 });
    expect(parsed.timeoutMs).toBe(9_000);
  });

  it.each<[Record<string, unknown>, number]>([
    [{ options: { visibility_timeout_ms: 5_000 } }, 5_000],
    [{ visibility_timeout_ms: 6_000 }, 6_000],
    [{ options: { visibility_timeout: 'PT30S' } }, 30_000],
    [{ options: { visibility_timeout: 'PT0.5S' } }, 500],
    [{ visibility_timeout: 45 }, 45_000],
    [{ options: { visibility_timeout_ms: 5_000, visibility_timeout: 'PT30S' } }, 5_000],
  ])('visibility timeout %j → %i ms', (body, ms) => {
    const parsed = parse(body);
    expect(parsed.visibilityMs).toBe(ms);
    expect(parsed.job.visibility_timeout_ms).toBe(ms);
  });

  it.each(['soon', 'PT0S', '-PT5S', 0, -3])('visibility_timeout %j → 400', (value) => {
    invalid({ ...base, options: { visibility_timeout: value } }, 'options.visibility_timeout');
  });
});

describe('retry and unique on the job', () => {
  it('echoes the effective merged retry policy and sets max_attempts from it', () => {
    const parsed = parse({ options: { retry: { max_attempts: 5, backoff_coefficient: 3 } } });
    expect(parsed.job.max_attempts).toBe(5);
    expect(parsed.job.retry).toEqual({
      max_attempts: 5,
      initial_interval: 'PT1S',
      backoff_coefficient: 3,
      max_interval: 'PT5M',
      jitter: true,
      non_retryable_errors: [],
      on_exhaustion: 'discard',
      backoff_strategy: 'exponential',
    });
    expect(parse({ retry: { max_attempts: 0 } }).job.max_attempts).toBe(0);
    expect(parse({ options: { retry_policy: { max_attempts: 7 } } }).job.max_attempts).toBe(7);
  });

  it('omits retry when none was given', () => {
    expect(parse({}).job).not.toHaveProperty('retry');
  });

  it('sets a hex SHA-256 unique fingerprint and echoes unique as sent', () => {
    const unique = { keys: ['type', 'args'], period: 'PT1H' };
    const parsed = parse({ options: { unique } });
    expect(parsed.job.unique).toEqual(unique);
    expect(parsed.unique?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.unique?.policy.onConflict).toBe('reject');
    expect(parsed.unique?.until).toBe(NOW + 3_600_000);
  });

  it('fingerprints depend on the dimensions, not on unrelated fields', () => {
    const key = (body: Record<string, unknown>) => parse({ options: { unique: {} }, ...body }).unique!.key;
    expect(key({})).toBe(key({ priority: 9, meta: { z: 1 } }));
    expect(key({})).not.toBe(key({ args: ['other@b.c'] }));
    expect(key({})).not.toBe(key({ type: 'email.other' }));
    expect(parse({ options: { unique: {} } }).unique?.until).toBeUndefined();
  });
});

describe('values every store can keep (issue 25)', () => {
  it('refuses, in-process too, values JSON cannot carry, deep nesting, NUL and lone surrogates, naming the field', () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ args: [10n] }, 'args', 'json'],
      [{ args: [Number.NaN] }, 'args', 'json'],
      [{ args: [() => 1] }, 'args', 'json'],
      [{ args: [], meta: { a: Number.POSITIVE_INFINITY } }, 'meta', 'json'],
      [{ args: [JSON.parse('['.repeat(70) + ']'.repeat(70))] }, 'args', 'depth'],
      [{ args: ['\u0000'] }, 'args', 'string'],
      [{ args: [], meta: { '\udfff': 1 } }, 'meta', 'string'],
    ];
    for (const [extra, field, validation] of cases) {
      let caught: unknown;
      try {
        parseEnqueue({ type: 'a.b', ...extra }, 0);
      } catch (error) {
        caught = error;
      }
      expect(caught, field).toBeInstanceOf(OjsError);
      expect((caught as OjsError).details).toMatchObject({ field, validation });
    }
  });

  it('bounds timeouts at 2^31-1 ms and relative times at year 9999', () => {
    expect(() => parseEnqueue({ type: 'a.b', args: [], timeout_ms: 2 ** 31 }, 0)).toThrow(OjsError);
    expect(() => parseEnqueue({ type: 'a.b', args: [], options: { visibility_timeout_ms: 1e308 } }, 0)).toThrow(OjsError);
    expect(() => parseEnqueue({ type: 'a.b', args: [], timeout: 1e308 }, 0)).toThrow(OjsError);
    expect(parseEnqueue({ type: 'a.b', args: [], timeout_ms: 2 ** 31 - 1 }, 0).timeoutMs).toBe(2 ** 31 - 1);
    expect(() => parseEnqueue({ type: 'a.b', args: [], scheduled_at: '+P8100Y' }, 0)).toThrow(OjsError);
    expect(() => parseEnqueue({ type: 'a.b', args: [], retry: { max_interval: 'P400D' } }, 0)).toThrow(OjsError);
  });
});
