import { describe, expect, it } from 'vitest';
import { BinaryHeap, type HeapNode } from '../src/binary-heap.js';

/** Deterministic PRNG so a failure reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const order = (p: { a: number; b: number }, q: { a: number; b: number }) => p.a - q.a || p.b - q.b;

describe('BinaryHeap', () => {
  it('pops by primary key, then by tie breaker', () => {
    const heap = new BinaryHeap<string>();
    heap.push('c', 2, 1);
    heap.push('a', 1, 5);
    heap.push('b', 1, 9);
    heap.push('d', 2, 0);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop(), heap.pop()].map((n) => n?.value)).toEqual(['a', 'b', 'd', 'c', undefined]);
  });

  it('stays ordered under random pushes, pops, removals and re-keys', () => {
    const random = rng(42);
    const heap = new BinaryHeap<number>();
    const live = new Set<HeapNode<number>>();
    for (let step = 0; step < 5_000; step++) {
      const r = random();
      if (r < 0.45 || live.size === 0) {
        live.add(heap.push(step, Math.floor(random() * 100), step));
      } else if (r < 0.65) {
        const top = heap.pop()!;
        const expected = [...live].sort(order)[0]!;
        expect(top).toBe(expected);
        expect(top.index).toBe(-1);
        live.delete(top);
      } else if (r < 0.85) {
        const victim = [...live][Math.floor(random() * live.size)]!;
        heap.remove(victim);
        expect(victim.index).toBe(-1);
        live.delete(victim);
      } else {
        const node = [...live][Math.floor(random() * live.size)]!;
        heap.update(node, Math.floor(random() * 100), node.b);
      }
      expect(heap.size).toBe(live.size);
    }
    const drained: Array<HeapNode<number>> = [];
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) drained.push(n);
    expect(drained).toEqual([...live].sort(order));
  });

  it('ignores removal of a node that already left', () => {
    const heap = new BinaryHeap<string>();
    const a = heap.push('a', 1, 0);
    heap.push('b', 2, 0);
    heap.remove(a);
    heap.remove(a);
    expect(heap.size).toBe(1);
    expect(heap.peek()?.value).toBe('b');
  });

  it('lists the smallest nodes up to a key without removing them', () => {
    const random = rng(7);
    const heap = new BinaryHeap<number>();
    const all: Array<HeapNode<number>> = [];
    for (let i = 0; i < 500; i++) all.push(heap.push(i, Math.floor(random() * 1000), i));
    const expected = all.filter((n) => n.a <= 300).sort(order);
    expect(heap.smallest(10_000, 300)).toEqual(expected);
    expect(heap.smallest(7, 300)).toEqual(expected.slice(0, 7));
    expect(heap.smallest(0, 300)).toEqual([]);
    expect(heap.size).toBe(500);
  });
});
