import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, OjsError, docsUrl, errorInfo, isOjsError, type OjsErrorBody } from '../src/index.js';

// http.md §Code catalog: code → [HTTP status, retryable].
const CATALOG: Array<[string, number, boolean]> = [
  ['invalid_payload', 400, false],
  ['invalid_request', 400, false],
  ['schema_validation', 400, false],
  ['validation_error', 422, false],
  ['unsupported', 422, false],
  ['queue_paused', 422, true],
  ['not_found', 404, false],
  ['conflict', 409, false],
  ['duplicate', 409, false],
  ['payload_too_large', 413, false],
  ['rate_limited', 429, true],
  ['unauthenticated', 401, false],
  ['permission_denied', 403, false],
  ['backend_error', 500, true],
  ['backend_unavailable', 503, true],
];

describe('error catalog', () => {
  it.each(CATALOG)('%s → %i, retryable %s', (code, status, retryable) => {
    expect(errorInfo(code)).toMatchObject({ status, retryable });
    const err = new OjsError(code, 'x');
    expect(err.status).toBe(status);
    expect(err.retryable).toBe(retryable);
  });

  it('has no code the protocol catalog lacks (apart from the backpressure spelling)', () => {
    const known = new Set([...CATALOG.map(([c]) => c), 'QUEUE_FULL']);
    for (const code of Object.keys(ERROR_CATALOG)) expect(known.has(code), code).toBe(true);
  });

  it("uses lowercase snake codes, but for the backpressure extension's own QUEUE_FULL", () => {
    for (const code of Object.keys(ERROR_CATALOG)) if (code !== 'QUEUE_FULL') expect(code).toMatch(/^[a-z][a-z_]*$/);
  });

  it('gives every catalog code a one-line hint', () => {
    for (const [code, info] of Object.entries(ERROR_CATALOG)) {
      expect(info.hint.length, code).toBeGreaterThan(0);
      expect(info.hint).not.toContain('\n');
    }
  });

  it('treats unknown codes as non-retryable', () => {
    expect(errorInfo('x_custom').retryable).toBe(false);
    expect(new OjsError('x_custom', 'boom').retryable).toBe(false);
  });

  it('docs_url is https://openjobspec.org/errors/<code>', () => {
    expect(docsUrl('not_found')).toBe('https://openjobspec.org/errors/not_found');
  });
});

describe('OjsError', () => {
  it('lets options override the catalog status and retryability', () => {
    const err = new OjsError('conflict', 'm', { status: 418, retryable: true });
    expect([err.status, err.retryable]).toEqual([418, true]);
  });

  it('toBody carries the MUST fields plus hint, docs_url and request_id', () => {
    const body = OjsError.notFound('job', 'abc').toBody('req_1');
    expect(body).toEqual({
      code: 'not_found',
      message: "Job 'abc' not found.",
      retryable: false,
      details: { resource_type: 'job', resource_id: 'abc' },
      request_id: 'req_1',
      hint: ERROR_CATALOG.not_found.hint,
      docs_url: 'https://openjobspec.org/errors/not_found',
    });
  });

  it('toBody omits absent optional fields', () => {
    const body = new OjsError('x_custom', 'custom').toBody();
    expect(body).toEqual({ code: 'x_custom', message: 'custom', retryable: false, docs_url: 'https://openjobspec.org/errors/x_custom' });
    expect(body.message.length).toBeGreaterThan(0);
  });

  it('validation errors are 422 with type validation_error', () => {
    const err = OjsError.validation('Invalid retry policy: max_interval.', { field: 'retry.max_interval' });
    expect([err.code, err.status, err.type]).toEqual(['validation_error', 422, 'validation_error']);
    expect(err.toBody().type).toBe('validation_error');
  });

  it.each([
    ['invalidRequest', OjsError.invalidRequest('m'), 'invalid_request', 400],
    ['conflict', OjsError.conflict('m'), 'conflict', 409],
    ['duplicate', OjsError.duplicate('m'), 'duplicate', 409],
    ['unsupported', OjsError.unsupported('m'), 'unsupported', 422],
    ['backend', OjsError.backend('m', new Error('io')), 'backend_error', 500],
  ] as const)('%s factory → %s %i', (_name, err, code, status) => {
    expect([err.code, err.status]).toEqual([code, status]);
  });

  it('keeps the cause of a backend error', () => {
    const cause = new Error('io');
    expect(OjsError.backend('m', cause).cause).toBe(cause);
  });

  it('round-trips through toBody/fromBody', () => {
    const original = new OjsError('duplicate', 'Job exists.', { details: { existing_job_id: 'j1', unique_key: 'k' } });
    const back = OjsError.fromBody(original.toBody('req_9'), 409);
    expect(back).toBeInstanceOf(OjsError);
    expect([back.code, back.message, back.status, back.retryable, back.details]).toEqual([
      'duplicate',
      'Job exists.',
      409,
      false,
      { existing_job_id: 'j1', unique_key: 'k' },
    ]);
    const validation = OjsError.fromBody(OjsError.validation('bad').toBody(), 422);
    expect(validation.type).toBe('validation_error');
  });

  it('fromBody keeps the wire retryable flag and falls back to the catalog status', () => {
    const body: OjsErrorBody = { code: 'rate_limited', message: 'slow down', retryable: true };
    const err = OjsError.fromBody(body);
    expect([err.status, err.retryable]).toEqual([429, true]);
    expect(OjsError.fromBody({ code: 'conflict', message: 'x', retryable: true }).retryable).toBe(true);
  });

  it('isOjsError recognises instances and look-alikes from another module copy', () => {
    expect(isOjsError(new OjsError('conflict', 'x'))).toBe(true);
    const foreign = Object.assign(new Error('x'), { name: 'OjsError', code: 'conflict', status: 409 });
    expect(isOjsError(foreign)).toBe(true);
    expect(isOjsError(new Error('x'))).toBe(false);
    expect(isOjsError({ code: 'conflict', status: 409 })).toBe(false);
  });
});
