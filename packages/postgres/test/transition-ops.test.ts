/** Encoding transition ops for jobTransitionMany.sql: a batch's shared patches are worked out once. */
import { allowedFrom, type TransitionOp } from '@ojskit/core/driver';
import { describe, expect, it } from 'vitest';
import { encodeOp, OpEncoder } from '../src/transition-ops.js';

const ID = (n: number) => `0190a1b2-c3d4-7e5f-8a9b-${String(n).padStart(12, '0')}`;

/** What the encoder writes, against encodeOp's record of the same op (the reference). */
function encodeBoth(ops: TransitionOp[]) {
  const encoder = new OpEncoder();
  return ops.map((op, i) => {
    const fast = encoder.encode(op, i);
    const reference = encodeOp(op, i);
    const record = { ...(JSON.parse(fast.text) as object), ...(JSON.parse(fast.shared) as object) };
    return { fast: { record, shared: fast.shared, key: fast.key, shape: fast.shape }, reference };
  });
}

describe('OpEncoder', () => {
  const set = { completed_at: '2026-01-01T00:00:00.000Z' };
  const unset = ['error', 'worker_id', 'next_attempt_at'];
  const x = { finishedAt: 1, visibleUntil: null, timeoutAt: null, claimVisibilityMs: null };
  const ack = (n: number, expect?: TransitionOp['expect']): TransitionOp => ({
    id: ID(n),
    from: allowedFrom('completed', 'ack'),
    to: 'completed',
    set,
    unset,
    x,
    returning: 'summary',
    ...(expect !== undefined ? { expect } : {}),
  });

  it('writes the records encodeOp does for ops sharing their patches, guard values per op', () => {
    const ops = [ack(1, { workerId: 'w1' }), ack(2, { workerId: 'w"2' }), ack(3, { workerId: 'w3', attempt: 2 }), ack(4), ack(5, { attempt: 1 })];
    const encoded = encodeBoth(ops);
    for (const { fast, reference } of encoded) {
      expect(fast.record).toEqual(reference.record);
      expect(fast.key).toBe(reference.key);
      expect(fast.shape).toEqual(reference.shape);
    }
    // The part they share is one string (sent once per statement), the guards never in it.
    expect(new Set(encoded.map((e) => e.fast.shared)).size).toBe(1);
    expect(encoded[0]!.fast.shared).not.toMatch(/"(i|id|attempt|worker)"/);
  });

  it('works each op out afresh when its patch objects differ from the previous op', () => {
    const ops: TransitionOp[] = [
      ack(1),
      { ...ack(2), set: { completed_at: '2026-01-01T00:00:01.000Z', result: { a: [1, null] } } },
      { ...ack(3), set: { completed_at: '2026-01-01T00:00:01.000Z', custom: 'kept in doc' }, x: { ...x, extra: 'x_rest' } as TransitionOp['x'] },
      { id: ID(4), from: ['active'], to: 'retryable', set: { attempt: 1 }, expect: { visibleUntil: 5, deadLetter: false } },
      { id: ID(5), from: ['active'], to: 'retryable', set: { attempt: 1 }, expect: { visibleUntil: 6, deadLetter: true }, returning: 'summary' },
    ];
    for (const { fast, reference } of encodeBoth(ops)) {
      expect(fast.record).toEqual(reference.record);
      expect(fast.key).toBe(reference.key);
    }
  });
});
