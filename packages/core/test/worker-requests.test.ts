import { describe, expect, it } from 'vitest';
import {
  MAX_FETCH_WAIT_MS,
  parseAckBatchRequest,
  parseAckRequest,
  parseFetchRequest,
  parseHeartbeatRequest,
  parseNackRequest,
  parseProgressRequest,
} from '../src/entries/schemas.js';
import { expectOjsError } from './expect-ojs-error.js';

const invalid = (fn: () => unknown, field?: string) => {
  const err = expectOjsError(fn, 'invalid_request', 400);
  if (field) expect(err.details?.field).toBe(field);
};

describe('parseFetchRequest', () => {
  it('applies defaults: count 1, no wait', () => {
    expect(parseFetchRequest({ queues: ['default'] }, 100)).toEqual({ queues: ['default'], count: 1, waitMs: 0 });
  });

  it('keeps queue order, drops duplicates, and reads worker id and visibility', () => {
    expect(parseFetchRequest({ queues: ['b', 'a', 'b'], count: 5, worker_id: 'w1', visibility_timeout_ms: 5_000 }, 100)).toEqual({
      queues: ['b', 'a'],
      count: 5,
      workerId: 'w1',
      visibilityMs: 5_000,
      waitMs: 0,
    });
  });

  it('clamps count to the maximum (supports at least 10)', () => {
    expect(parseFetchRequest({ queues: ['q'], count: 10 }, 10).count).toBe(10);
    expect(parseFetchRequest({ queues: ['q'], count: 5_000 }, 100).count).toBe(100);
  });

  it('caps wait_ms at 2000', () => {
    expect(MAX_FETCH_WAIT_MS).toBe(2_000);
    expect(parseFetchRequest({ queues: ['q'], wait_ms: 500 }, 10).waitMs).toBe(500);
    expect(parseFetchRequest({ queues: ['q'], wait_ms: 60_000 }, 10).waitMs).toBe(2_000);
  });

  it.each<[string, unknown, string | undefined]>([
    ['body not an object', [], undefined],
    ['queues missing', {}, 'queues'],
    ['queues empty', { queues: [] }, 'queues'],
    ['queues not an array', { queues: 'default' }, 'queues'],
    ['invalid queue name', { queues: ['ok', 'Bad'] }, 'queues[1]'],
    ['count 0', { queues: ['q'], count: 0 }, 'count'],
    ['count negative', { queues: ['q'], count: -1 }, 'count'],
    ['count fractional', { queues: ['q'], count: 1.5 }, 'count'],
    ['count string', { queues: ['q'], count: '2' }, 'count'],
    ['empty worker_id', { queues: ['q'], worker_id: '' }, 'worker_id'],
    ['numeric worker_id', { queues: ['q'], worker_id: 7 }, 'worker_id'],
    ['visibility 0', { queues: ['q'], visibility_timeout_ms: 0 }, 'visibility_timeout_ms'],
    ['negative wait', { queues: ['q'], wait_ms: -1 }, 'wait_ms'],
    ['fractional wait', { queues: ['q'], wait_ms: 1.5 }, 'wait_ms'],
  ])('%s → 400', (_label, body, field) => {
    invalid(() => parseFetchRequest(body, 100), field);
  });
});

describe('parseAckRequest', () => {
  it('reads job_id, result and worker_id', () => {
    expect(parseAckRequest({ job_id: 'j1', result: { ok: 1 }, worker_id: 'w' })).toEqual({
      jobId: 'j1',
      result: { ok: 1 },
      hasResult: true,
      workerId: 'w',
    });
  });

  it('distinguishes no result from a falsy result', () => {
    expect(parseAckRequest({ job_id: 'j1' }).hasResult).toBe(false);
    for (const result of [null, 0, false, '']) {
      const parsed = parseAckRequest({ job_id: 'j1', result });
      expect(parsed.result).toBe(result);
      expect(parsed.hasResult).toBe(true);
    }
  });

  it('treats a null worker_id as absent', () => {
    expect(parseAckRequest({ job_id: 'j1', worker_id: null })).not.toHaveProperty('workerId');
  });

  it.each([
    [{}, 'job_id'],
    [{ job_id: '' }, 'job_id'],
    [{ job_id: 5 }, 'job_id'],
    [{ job_id: 'j', worker_id: 5 }, 'worker_id'],
    ['x', undefined],
  ])('%j → 400', (body, field) => {
    invalid(() => parseAckRequest(body), field);
  });

  it('batch acks name the failing index', () => {
    expect(parseAckBatchRequest({ acks: [{ job_id: 'a' }, { job_id: 'b', result: 1 }] }).map((a) => a.jobId)).toEqual(['a', 'b']);
    const err = expectOjsError(() => parseAckBatchRequest({ acks: [{ job_id: 'a' }, {}] }), 'invalid_request', 400);
    expect(err.details).toMatchObject({ index: 1, field: 'job_id' });
    expect(err.message).toContain('acks[1]');
    invalid(() => parseAckBatchRequest({ acks: [] }), 'acks');
  });
});

describe('parseNackRequest', () => {
  it('accepts a FAIL without an error object', () => {
    expect(parseNackRequest({ job_id: 'j1' })).toEqual({ jobId: 'j1', error: {}, requeue: false });
    expect(parseNackRequest({ job_id: 'j1', error: null }).error).toEqual({});
  });

  it('keeps the error fields and extra keys, reads requeue and worker_id', () => {
    const error = { code: 'handler_error', message: 'boom', type: 'TypeError', retryable: false, details: { error_class: 'X' }, backtrace: ['a'], extra: 1 };
    expect(parseNackRequest({ job_id: 'j1', error, requeue: true, worker_id: 'w' })).toEqual({ jobId: 'j1', error, requeue: true, workerId: 'w' });
  });

  it.each<[unknown, string]>([
    [{}, 'job_id'],
    [{ job_id: 'j', error: 'boom' }, 'error'],
    [{ job_id: 'j', error: [] }, 'error'],
    [{ job_id: 'j', error: { code: 5 } }, 'error.code'],
    [{ job_id: 'j', error: { message: {} } }, 'error.message'],
    [{ job_id: 'j', error: { type: 1 } }, 'error.type'],
    [{ job_id: 'j', error: { retryable: 'no' } }, 'error.retryable'],
    [{ job_id: 'j', error: { details: 'x' } }, 'error.details'],
    [{ job_id: 'j', requeue: 'yes' }, 'requeue'],
  ])('%j → 400', (body, field) => {
    invalid(() => parseNackRequest(body), field);
  });
});

describe('parseHeartbeatRequest', () => {
  it('requires a non-empty worker_id', () => {
    invalid(() => parseHeartbeatRequest({}), 'worker_id');
    invalid(() => parseHeartbeatRequest({ worker_id: '' }), 'worker_id');
    invalid(() => parseHeartbeatRequest({ worker_id: 3 }), 'worker_id');
  });

  it('extends the union of active_job_ids, active_jobs (array) and job_id, without duplicates', () => {
    const parsed = parseHeartbeatRequest({ worker_id: 'w', active_job_ids: ['a', 'b'], active_jobs: ['b', 'c'], job_id: 'd' });
    expect([...parsed.jobIds].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('accepts active_jobs as a count (SDK form) and then takes ids from active_job_ids', () => {
    expect(parseHeartbeatRequest({ worker_id: 'w', active_jobs: 2, active_job_ids: ['a', 'b'] }).jobIds).toEqual(['a', 'b']);
    expect(parseHeartbeatRequest({ worker_id: 'w', active_jobs: 0 }).jobIds).toEqual([]);
    expect(parseHeartbeatRequest({ worker_id: 'w' }).jobIds).toEqual([]);
  });

  it('reads the optional worker info', () => {
    expect(
      parseHeartbeatRequest({
        worker_id: 'w',
        visibility_timeout_ms: 30_000,
        state: 'running',
        hostname: 'h',
        pid: 42,
        queues: ['q'],
        concurrency: 4,
        labels: { zone: 'a' },
      }),
    ).toEqual({
      workerId: 'w',
      jobIds: [],
      visibilityMs: 30_000,
      state: 'running',
      hostname: 'h',
      pid: 42,
      queues: ['q'],
      concurrency: 4,
      labels: { zone: 'a' },
    });
  });

  it.each<[unknown, string]>([
    [{ worker_id: 'w', active_jobs: -1 }, 'active_jobs'],
    [{ worker_id: 'w', active_jobs: 'a' }, 'active_jobs'],
    [{ worker_id: 'w', active_jobs: [1] }, 'active_jobs'],
    [{ worker_id: 'w', active_job_ids: 'a' }, 'active_job_ids'],
    [{ worker_id: 'w', job_id: 5 }, 'job_id'],
    [{ worker_id: 'w', visibility_timeout_ms: 0 }, 'visibility_timeout_ms'],
    [{ worker_id: 'w', queues: 'q' }, 'queues'],
  ])('%j → 400', (body, field) => {
    invalid(() => parseHeartbeatRequest(body), field);
  });
});

describe('parseProgressRequest', () => {
  it('clamps progress into [0, 1] instead of rejecting', () => {
    expect(parseProgressRequest({ progress: 0.4 }).progress).toBe(0.4);
    expect(parseProgressRequest({ progress: 1.7 }).progress).toBe(1);
    expect(parseProgressRequest({ progress: -3 }).progress).toBe(0);
    expect(parseProgressRequest({ progress: 0 }).progress).toBe(0);
  });

  it('accepts message or data alone, and all three together', () => {
    expect(parseProgressRequest({ message: 'half' })).toEqual({ message: 'half' });
    expect(parseProgressRequest({ data: { rows: 5 } })).toEqual({ data: { rows: 5 } });
    expect(parseProgressRequest({ progress: 0.5, message: 'm', data: { a: 1 } })).toEqual({ progress: 0.5, message: 'm', data: { a: 1 } });
  });

  it('requires at least one of progress, message or data', () => {
    invalid(() => parseProgressRequest({}));
    invalid(() => parseProgressRequest({ progress: null, message: null, data: null }));
    invalid(() => parseProgressRequest({ checkpoint: { a: 1 } }));
  });

  it.each<[unknown, string]>([
    [{ progress: '50%' }, 'progress'],
    [{ progress: Number.NaN }, 'progress'],
    [{ message: 5 }, 'message'],
    [{ data: [1] }, 'data'],
    [{ data: 'x' }, 'data'],
  ])('%j → 400', (body, field) => {
    invalid(() => parseProgressRequest(body), field);
  });
});
