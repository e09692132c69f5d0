/** The coalescer: calls of one event-loop turn share a batch, each gets its own result, weights bound a batch. */
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../src/coalescer.js';

describe('Coalescer', () => {
  it('batches the calls of one turn and hands each caller its own result', async () => {
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(async (batch) => {
      batches.push([...batch]);
      return batch.map((n) => n * 10);
    });
    const results = await Promise.all([1, 2, 3].map((n) => c.call(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(await c.call(4)).toBe(40);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('flushes early once the weight limit is reached', async () => {
    const batches: number[][] = [];
    const c = new Coalescer<number, number>(
      async (batch) => (batches.push([...batch]), [...batch]),
      5,
      (n) => n,
    );
    await Promise.all([2, 2, 2, 1].map((n) => c.call(n)));
    expect(batches).toEqual([[2, 2, 2], [1]]);
  });

  it('marks a batch that reached the weight limit full, so the caller can send it at once', async () => {
    const batches: Array<[number[], boolean]> = [];
    const c = new Coalescer<number, number>(async (batch, full) => (batches.push([[...batch], full]), [...batch]), 3);
    await Promise.all([1, 2, 3, 4, 5].map((n) => c.call(n)));
    expect(batches).toEqual([
      [[1, 2, 3], true],
      [[4, 5], false],
    ]);
  });

  it('rejects every caller of a failed batch', async () => {
    const c = new Coalescer<number, number>(async () => {
      throw new Error('down');
    });
    const results = await Promise.allSettled([c.call(1), c.call(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
