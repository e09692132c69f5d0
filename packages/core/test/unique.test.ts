import { describe, expect, it } from 'vitest';
import { canonicalJson, uniqueFingerprint } from '../src/unique/fingerprint.js';
import { DEFAULT_UNIQUE_STATES, resolveUniquePolicy, type UniquePolicy } from '../src/entries/schemas.js';
import { expectOjsError } from './expect-ojs-error.js';

describe('resolveUniquePolicy', () => {
  it('defaults: dimensions type+args, no period, five blocking states, reject', () => {
    expect(resolveUniquePolicy({})).toEqual({
      dimensions: ['type', 'args'],
      states: ['scheduled', 'available', 'pending', 'active', 'retryable'],
      onConflict: 'reject',
    });
    expect([...DEFAULT_UNIQUE_STATES].sort()).toEqual(['active', 'available', 'pending', 'retryable', 'scheduled']);
  });

  it('legacy key = arg field list → args dimension with args_keys', () => {
    expect(resolveUniquePolicy({ key: ['user_id'] })).toMatchObject({ dimensions: ['type', 'args'], argsKeys: ['user_id'] });
    expect(resolveUniquePolicy({ key: ['a'], args_keys: ['b'] }).argsKeys).toEqual(['b']);
  });

  it('keys are dimensions and type is always included', () => {
    expect(resolveUniquePolicy({ keys: ['queue'] }).dimensions.sort()).toEqual(['queue', 'type']);
    expect(resolveUniquePolicy({ keys: ['type', 'queue', 'args'] }).dimensions.sort()).toEqual(['args', 'queue', 'type']);
    expect(resolveUniquePolicy({ keys: [] }).dimensions).toEqual(['type']);
    expect(resolveUniquePolicy({ keys: ['meta'], meta_keys: ['tenant'] })).toMatchObject({ metaKeys: ['tenant'] });
  });

  it('meta dimension requires meta_keys', () => {
    const err = expectOjsError(() => resolveUniquePolicy({ keys: ['meta'] }), 'invalid_request', 400);
    expect(err.details?.field).toBe('unique.meta_keys');
  });

  it('parses period as a duration', () => {
    expect(resolveUniquePolicy({ period: 'PT1H' }).periodMs).toBe(3_600_000);
    expect(resolveUniquePolicy({ period: 'P1D' }).periodMs).toBe(86_400_000);
  });

  it('accepts every valid state list and every conflict rule; use_existing = ignore', () => {
    expect(resolveUniquePolicy({ states: ['completed', 'active'] }).states).toEqual(['completed', 'active']);
    for (const rule of ['reject', 'replace', 'replace_except_schedule', 'ignore']) {
      expect(resolveUniquePolicy({ on_conflict: rule }).onConflict).toBe(rule);
    }
    expect(resolveUniquePolicy({ on_conflict: 'use_existing' }).onConflict).toBe('ignore');
  });

  it.each<[string, unknown]>([
    ['unknown dimension', { keys: ['type', 'priority'] }],
    ['keys not an array', { keys: 'type' }],
    ['keys with a non-string', { keys: [1] }],
    ['legacy key not an array', { key: 'user_id' }],
    ['bad state', { states: ['running'] }],
    ['bad state case', { states: ['Active'] }],
    ['states not an array', { states: 'active' }],
    ['bad on_conflict', { on_conflict: 'overwrite' }],
    ['non-string on_conflict', { on_conflict: 1 }],
    ['malformed period', { period: 'an hour' }],
    ['zero period', { period: 'PT0S' }],
    ['numeric period', { period: 3600 }],
    ['meta_keys not strings', { keys: ['meta'], meta_keys: [1] }],
    ['not an object', ['type']],
    ['null', null],
  ])('%s → 400 invalid_request', (_label, input) => {
    expectOjsError(() => resolveUniquePolicy(input), 'invalid_request', 400);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and is compact', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });

  it('NFC-normalises strings and keys', () => {
    const decomposed = 'e\u0301'; // e + combining acute
    const composed = '\u00e9';
    expect(canonicalJson({ [decomposed]: decomposed })).toBe(canonicalJson({ [composed]: composed }));
    expect(canonicalJson(decomposed)).toBe(`"${composed}"`);
  });

  it('renders scalars as JSON', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
  });

  it('equals JSON.stringify modulo key order', () => {
    const value = { z: [1, 'two', { k: null }], a: { n: -0.5, t: false } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});

describe('uniqueFingerprint', () => {
  type FingerprintJob = Parameters<typeof uniqueFingerprint>[0];
  const job: FingerprintJob = {
    type: 'report.build',
    queue: 'reports',
    args: [{ user_id: 7, day: '2026-01-15', noise: 1 }],
    meta: { tenant: 't1', trace: 'x' },
  };
  const fp = (j: Partial<FingerprintJob>, p: unknown = {}) => uniqueFingerprint({ ...job, ...j }, resolveUniquePolicy(p));

  it('is a stable hex SHA-256', () => {
    expect(fp({})).toMatch(/^[0-9a-f]{64}$/);
    expect(fp({})).toBe(fp({}));
  });

  it('matches SHA-256 of the canonical JSON of {type, args}', async () => {
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256')
      .update(canonicalJson({ type: job.type, args: job.args }))
      .digest('hex');
    expect(fp({})).toBe(expected);
  });

  it('ignores key order inside args', () => {
    expect(fp({ args: [{ noise: 1, day: '2026-01-15', user_id: 7 }] })).toBe(fp({}));
  });

  it('default dimensions: type and args, not queue or meta', () => {
    expect(fp({ queue: 'other' })).toBe(fp({}));
    expect(fp({ meta: { tenant: 't2' } })).toBe(fp({}));
    expect(fp({ type: 'report.other' })).not.toBe(fp({}));
    expect(fp({ args: [{ user_id: 8, day: '2026-01-15', noise: 1 }] })).not.toBe(fp({}));
  });

  it('queue dimension makes the queue count', () => {
    const p = { keys: ['type', 'queue'] };
    expect(fp({ queue: 'other' }, p)).not.toBe(fp({}, p));
    expect(fp({ args: [1] }, p)).toBe(fp({}, p));
  });

  it('args_keys / legacy key select top-level fields of the object arg', () => {
    const p = { key: ['user_id', 'day'] };
    expect(fp({ args: [{ user_id: 7, day: '2026-01-15', noise: 99 }] }, p)).toBe(fp({}, p));
    expect(fp({ args: [{ user_id: 7, day: '2026-01-16', noise: 1 }] }, p)).not.toBe(fp({}, p));
    expect(fp({}, { args_keys: ['user_id'] })).toBe(fp({ args: [{ user_id: 7 }] }, { args_keys: ['user_id'] }));
  });

  it('meta dimension uses only meta_keys', () => {
    const p = { keys: ['type', 'meta'], meta_keys: ['tenant'] };
    expect(fp({ meta: { tenant: 't1', trace: 'other' } }, p)).toBe(fp({}, p));
    expect(fp({ meta: { tenant: 't2', trace: 'x' } }, p)).not.toBe(fp({}, p));
    expect(fp({ args: ['anything'] }, p)).toBe(fp({}, p));
  });

  it('type is always part of the fingerprint', () => {
    const p: UniquePolicy = { dimensions: ['type'], states: [], onConflict: 'reject' };
    expect(uniqueFingerprint({ ...job, type: 'a' }, p)).not.toBe(uniqueFingerprint({ ...job, type: 'b' }, p));
  });

  it('NFC-equivalent args give the same fingerprint', () => {
    expect(fp({ args: ['caf\u0065\u0301'] })).toBe(fp({ args: ['caf\u00e9'] }));
  });
});
