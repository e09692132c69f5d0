import { describe, expect, it } from 'vitest';
import { BinaryHeap, type HeapNode } from '../src/binary-heap.js';

interface Item extends HeapNode {
  value: number | string;
}

const item = (value: number | string): Item => ({ value, a: 0, b: 0, index: -1, heap: null });

/** Deterministic PRNG so a failure reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const order = (p: HeapNode, q: HeapNode) => p.a - q.a || p.b - q.b;

describe('BinaryHeap', () => {
  it('pops by primary key, then by tie breaker', () => {
    const heap = new BinaryHeap<Item>();
    heap.push(item('c'), 2, 1);
    heap.push(item('a'), 1, 5);
    heap.push(item('b'), 1, 9);
    heap.push(item('d'), 2, 0);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop(), heap.pop()].map((n) => n?.value)).toEqual(['a', 'b', 'd', 'c', undefined]);
  });

  it('stays ordered under random pushes, pops, removals and re-keys, reusing nodes', () => {
    const random = rng(42);
    const heap = new BinaryHeap<Item>();
    const live = new Set<Item>();
    const spare: Item[] = [];
    for (let step = 0; step < 5_000; step++) {
      const r = random();
      if (r < 0.45 || live.size === 0) {
        const node = spare.pop() ?? item(step);
        heap.push(node, Math.floor(random() * 100), step);
        live.add(node);
      } else if (r < 0.65) {
        const top = heap.pop()!;
        expect(top).toBe([...live].sort(order)[0]);
        expect(top.index).toBe(-1);
        expect(top.heap).toBeNull();
        live.delete(top);
        spare.push(top);
      } else if (r < 0.85) {
        const victim = [...live][Math.floor(random() * live.size)]!;
        heap.remove(victim);
        expect(victim.heap).toBeNull();
        live.delete(victim);
        spare.push(victim);
      } else {
        const node = [...live][Math.floor(random() * live.size)]!;
        heap.update(node, Math.floor(random() * 100), node.b);
      }
      expect(heap.size).toBe(live.size);
    }
    const drained: Item[] = [];
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) drained.push(n);
    expect(drained).toEqual([...live].sort(order));
  });

  it('ignores removal of a node it does not hold and refuses a node held elsewhere', () => {
    const heap = new BinaryHeap<Item>();
    const other = new BinaryHeap<Item>();
    const a = item('a');
    heap.push(a, 1, 0);
    heap.push(item('b'), 2, 0);
    other.remove(a);
    expect(heap.size).toBe(2);
    expect(() => other.push(a, 0, 0)).toThrow(/already in a heap/);
    heap.remove(a);
    heap.remove(a);
    expect(heap.size).toBe(1);
    expect(heap.peek()?.value).toBe('b');
  });

  it('lists the smallest nodes up to a key without removing them', () => {
    const random = rng(7);
    const heap = new BinaryHeap<Item>();
    const all: Item[] = [];
    for (let i = 0; i < 500; i++) {
      const node = item(i);
      heap.push(node, Math.floor(random() * 1000), i);
      all.push(node);
    }
    const expected = all.filter((n) => n.a <= 300).sort(order);
    expect(heap.smallest(10_000, 300)).toEqual(expected);
    expect(heap.smallest(7, 300)).toEqual(expected.slice(0, 7));
    expect(heap.smallest(0, 300)).toEqual([]);
    expect(heap.size).toBe(500);
  });
});
