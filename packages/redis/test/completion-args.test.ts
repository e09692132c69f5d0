/** completion-args.ts without Redis: the '@h' a compare-and-set completion writes, and when one is not sent. */
import { describe, expect, it } from 'vitest';
import { allowedFrom, type TransitionOp } from '@ojskit/core/driver';
import { HOT_FIELDS, unpackHot } from '../src/codec.js';
import { pushCompletionBatch, type CasArgs } from '../src/completion-args.js';

const T = 1_795_627_250_659;
const iso = (ms: number) => new Date(ms).toISOString();

function ack(id: string, expect: TransitionOp['expect']): TransitionOp {
  return {
    id,
    from: allowedFrom('completed', 'ack'),
    to: 'completed',
    set: { completed_at: iso(T + 5) },
    unset: ['error', 'worker_id', 'next_attempt_at'],
    x: { finishedAt: T + 5, visibleUntil: null, timeoutAt: null, claimVisibilityMs: null },
    returning: 'summary',
    ...(expect ? { expect } : {}),
  };
}

/** '@h' of an active job, by field name. */
function hot(fields: Partial<Record<(typeof HOT_FIELDS)[number], string>>): string {
  return HOT_FIELDS.map((f) => fields[f] ?? '').join('|');
}

describe('pushCompletionBatch with compare-and-set', () => {
  const claimed = hot({
    state: 'active',
    attempt: '2',
    type: 'mail.send',
    priority: '0',
    enqueued_at: iso(T - 10),
    started_at: iso(T),
    '@visibilityMs': '1800000',
    '@timeoutMs': '60000',
    '@claimVisibilityMs': '1800000',
    '@visibleUntil': String(T + 1_800_000),
    '@timeoutAt': String(T + 60_000),
    worker_id: 'host|pid|1',
  });

  it("sends '@h' as claimed and as the completion leaves it, the worker id's '|' included", () => {
    const cas: CasArgs = { raw: [], ops: [] };
    const out: Array<string | number> = [];
    pushCompletionBatch([ack('a', { workerId: 'host|pid|1', attempt: 2 })], out, () => ({ queue: 'mail', hot: claimed }), cas);
    expect(cas.raw[0]).toBe(claimed);
    const want = unpackHot(claimed);
    for (const gone of ['@claimVisibilityMs', '@visibleUntil', '@timeoutAt', 'worker_id']) delete want[gone];
    expect(unpackHot(cas.raw[1]!)).toEqual({ ...want, state: 'completed', completed_at: iso(T + 5), '@finishedAt': String(T + 5) });
    expect(cas.raw[1]!.split('|')).toHaveLength(HOT_FIELDS.length);
    expect(cas.ops).toEqual([{ queue: 'mail', type: 'mail.send', attempt: 2 }]);
    // the op's last argument names the ARGV holding the claimed '@h' (ARGV[1] is the packed JSON)
    expect(out.at(-1)).toBe(2);
  });

  it("sends each distinct claimed '@h' once per batch, and only for ops whose guards admit it", () => {
    const cas: CasArgs = { raw: [], ops: [] };
    const out: Array<string | number> = [];
    const other = claimed.replace(/^active\|2/, 'active|3');
    const hints: Record<string, string> = { a: claimed, b: claimed, c: other, d: claimed, e: other };
    const ops = [
      ack('a', { workerId: 'someone else', attempt: 2 }),
      ack('b', { workerId: 'host|pid|1', attempt: 2 }),
      ack('c', { attempt: 3 }),
      ack('d', { attempt: 2 }),
      ack('e', { attempt: 3 }),
    ];
    pushCompletionBatch(ops, out, (id) => ({ queue: 'mail', hot: hints[id]! }), cas);
    expect(cas.raw.filter((_, i) => i % 2 === 0)).toEqual([claimed, other]);
    expect(unpackHot(cas.raw[3]!)).toMatchObject({ state: 'completed', attempt: '3' });
    // each op's last argument: 7 per op, '' for the refused one, then ARGV 2, 4, 2, 4
    const atOf = (k: number) => out[out.length - 7 * (ops.length - k) + 6];
    expect([0, 1, 2, 3, 4].map(atOf)).toEqual(['', 2, 4, 2, 4]);
    expect(cas.ops.map((o) => o?.attempt)).toEqual([undefined, 2, 3, 2, 3]);
  });

  it('with history, sends the line after the texts, and none (a negative index) for a queue the claim said opts out', () => {
    const cas: CasArgs = { raw: [], ops: [], history: true };
    const out: Array<string | number> = [];
    const note = { at: iso(T + 5), trigger: 'ack' as const };
    const ops = [ack('a', { attempt: 2 }), ack('b', { attempt: 2 }), ack('c', { attempt: 2 })].map((op) => ({ ...op, note }));
    const quiet: Record<string, boolean> = { b: true, c: true };
    pushCompletionBatch(ops, out, (id) => (quiet[id] ? { queue: 'bulk', hot: claimed, history: false } : { queue: 'mail', hot: claimed }), cas);
    // a: the two texts and its line at ARGV 2; b and c share texts sent once more, without a line, at ARGV 5
    expect(cas.raw).toHaveLength(5);
    expect(cas.raw[2]).toMatch(/^[^|]+\|active\|completed\|ack\|2\|/);
    expect(cas.raw[3]).toBe(claimed);
    const atOf = (k: number) => out[out.length - 7 * (ops.length - k) + 6];
    expect([0, 1, 2].map(atOf)).toEqual([2, -5, -5]);
  });

  it("sends none when the op's guards do not admit the claim, or the driver has no claim to compare", () => {
    for (const [expectation, hint] of [
      [
        { workerId: 'other', attempt: 2 },
        { queue: 'mail', hot: claimed },
      ],
      [
        { workerId: 'host|pid|1', attempt: 1 },
        { queue: 'mail', hot: claimed },
      ],
      [undefined, { queue: 'mail', hot: claimed.replace(/^active/, 'retryable') }],
      [undefined, { queue: 'mail', hot: 'active|2' }],
      [undefined, undefined],
    ] as const) {
      const cas: CasArgs = { raw: [], ops: [] };
      const out: Array<string | number> = [];
      pushCompletionBatch([ack('a', expectation)], out, () => hint, cas);
      expect(cas.raw).toEqual([]);
      expect(cas.ops).toEqual([undefined]);
      expect(out.at(-1)).toBe('');
    }
  });
});
