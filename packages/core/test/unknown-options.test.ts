/** Unknown keys under `options` (and in its retry and unique policies) are refused, never dropped (envelope.md E7). */
import { describe, expect, it } from 'vitest';
import { ENQUEUE_OPTION_KEYS } from '../src/schemas/known-keys.js';
import { nearestName } from '../src/entries/formats.js';
import { EnqueueOptionsSchema, parseEnqueue } from '../src/entries/schemas.js';
import { expectOjsError } from './expect-ojs-error.js';

const NOW = Date.UTC(2026, 0, 15, 10, 30, 0, 0);
const enqueue =
  (options: Record<string, unknown>, flat: Record<string, unknown> = {}) =>
  () =>
    parseEnqueue({ type: 'email.send', args: [], ...flat, options }, NOW);

describe('unknown options', () => {
  it.each([
    ['qeueu', 'options.queue'],
    ['delay', 'options.delay_until'],
    ['max_attempts', 'options.retry.max_attempts'],
    ['on_conflict', 'options.unique.on_conflict'],
    ['prority', 'options.priority'],
    ['run_at', undefined],
  ])('options.%s → 400 naming the accepted options and %s', (key, suggestion) => {
    const err = expectOjsError(enqueue({ [key]: 'x' }), 'invalid_request', 400);
    expect(err.details).toMatchObject({ field: `options.${key}`, received: key, validation: 'unknown_key' });
    expect(err.details?.suggestion).toBe(suggestion);
    expect(err.message).toContain(`Unknown option 'options.${key}'`);
    if (suggestion) expect(err.message).toContain(`Did you mean '${suggestion}'?`);
    for (const accepted of ENQUEUE_OPTION_KEYS) expect(err.message).toContain(accepted);
  });

  it('refuses an unknown key even next to only common options, and stores nothing on the way', () => {
    expectOjsError(enqueue({ queue: 'email', qeueu: 'email' }), 'invalid_request', 400);
  });

  it('accepts every documented option key', () => {
    const options = {
      queue: 'q',
      priority: 1,
      timeout_ms: 5,
      scheduled_at: '+PT1S',
      expires_at: '+PT1H',
      retry: { max_attempts: 2 },
      unique: { period: 'PT1M' },
      tags: ['a'],
      visibility_timeout_ms: 1000,
      pending: true,
      metadata: { a: 1 },
    };
    expect(parseEnqueue({ type: 'a.b', args: [], options }, NOW).job).toMatchObject({ queue: 'q', max_attempts: 2, state: 'pending' });
    expect(parseEnqueue({ type: 'a.b', args: [], options: { delay_until: '+PT1S', retry_policy: {}, visibility_timeout: 'PT5S' } }, NOW).job.state).toBe(
      'scheduled',
    );
  });

  it('refuses unknown retry policy keys with 422 validation_error, under options and flat', () => {
    const err = expectOjsError(enqueue({ retry: { max_attempt: 7 } }), 'validation_error', 422);
    expect(err.details).toMatchObject({ field: 'options.retry.max_attempt', suggestion: 'options.retry.max_attempts' });
    const flat = expectOjsError(() => parseEnqueue({ type: 'a.b', args: [], retry: { backof_coefficient: 2 } }, NOW), 'validation_error', 422);
    expect(flat.details).toMatchObject({ field: 'retry.backof_coefficient', suggestion: 'retry.backoff_coefficient' });
  });

  it('refuses unknown unique policy keys with 400', () => {
    const err = expectOjsError(enqueue({ unique: { perod: 'PT1M' } }), 'invalid_request', 400);
    expect(err.details).toMatchObject({ field: 'options.unique.perod', suggestion: 'options.unique.period' });
  });

  it('keeps unknown top-level attributes (they are extensions the protocol requires to round-trip)', () => {
    expect(parseEnqueue({ type: 'a.b', args: [], x_trace: 'abc' }, NOW).job['x_trace']).toBe('abc');
  });

  it('the published options schema lists the same keys and is closed', () => {
    expect(Object.keys(EnqueueOptionsSchema.shape).sort()).toEqual([...ENQUEUE_OPTION_KEYS].sort());
    expect(EnqueueOptionsSchema.safeParse({ qeueu: 'x' }).success).toBe(false);
  });
});

describe('nearestName', () => {
  it('finds a swap, a typo and a prefix; nothing when far', () => {
    expect(nearestName('qeueu', ['queue', 'tags'])).toBe('queue');
    expect(nearestName('--prot', ['--port', '--host'])).toBe('--port');
    expect(nearestName('delay', ['delay_until', 'tags'])).toBe('delay_until');
    expect(nearestName('zzz', ['queue', 'tags'])).toBeUndefined();
  });
});
