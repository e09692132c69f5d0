import { describe, expect, it } from 'vitest';
import { ReadyQueue, type ReadyItem, type ReadyLevel } from '../src/ready-queue.js';

class Item implements ReadyItem {
  ready: ReadyLevel<ReadyItem> | null = null;
  constructor(
    readonly name: string,
    public priority: number,
    public seq: number,
  ) {}
}

function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const order = (p: Item, q: Item) => q.priority - p.priority || p.seq - q.seq;

describe('ReadyQueue', () => {
  it('takes the highest priority first, FIFO within a priority', () => {
    const q = new ReadyQueue<Item>();
    const items = [new Item('a0', 0, 1), new Item('b5', 5, 2), new Item('c0', 0, 3), new Item('d-1', -1, 4), new Item('e5', 5, 5)];
    for (const item of items) q.push(item);
    expect(q.size).toBe(5);
    expect([...q.values()].map((i) => i.name)).toEqual(['b5', 'e5', 'a0', 'c0', 'd-1']);
    const taken: string[] = [];
    for (let item = q.shift(); item !== undefined; item = q.shift()) taken.push(item.name);
    expect(taken).toEqual(['b5', 'e5', 'a0', 'c0', 'd-1']);
    expect(q.size).toBe(0);
    expect(q.peek()).toBeUndefined();
  });

  it('skips removed items and requeues them behind the rest with a new sequence', () => {
    const q = new ReadyQueue<Item>();
    const [a, b, c] = [new Item('a', 0, 1), new Item('b', 0, 2), new Item('c', 0, 3)];
    q.push(a!);
    q.push(b!);
    q.push(c!);
    q.remove(b!);
    q.remove(b!);
    expect(q.size).toBe(2);
    b!.seq = 4;
    q.push(b!);
    expect([q.shift(), q.shift(), q.shift(), q.shift()].map((i) => i?.name)).toEqual(['a', 'c', 'b', undefined]);
  });

  it('places an item that kept its older sequence by sequence', () => {
    const q = new ReadyQueue<Item>();
    const moved = new Item('moved', 0, 1);
    const later = new Item('later', 5, 2);
    q.push(moved);
    q.push(later);
    q.remove(moved);
    moved.priority = 5;
    q.push(moved);
    expect([...q.values()].map((i) => i.name)).toEqual(['moved', 'later']);
  });

  it('compacts a level once most of it was removed from the middle, so removed items are not held', () => {
    const q = new ReadyQueue<Item>();
    const items = Array.from({ length: 1_000 }, (_, i) => new Item(`i${i}`, 0, i + 1));
    for (const item of items) q.push(item);
    for (let i = 1; i < 1_000; i++) if (i % 10 !== 0) q.remove(items[i]!);
    const level = items[0]!.ready!;
    expect(level.items.length).toBeLessThan(400);
    expect([...q.values()].map((i) => i.name)).toEqual(items.filter((_, i) => i % 10 === 0).map((i) => i.name));
  });

  it('refuses an item that is already queued', () => {
    const q = new ReadyQueue<Item>();
    const a = new Item('a', 0, 1);
    q.push(a);
    expect(() => q.push(a)).toThrow(/already queued/);
  });

  it('matches a sorted reference under random pushes, shifts, removals and requeues', () => {
    const random = rng(3);
    const q = new ReadyQueue<Item>();
    const live = new Set<Item>();
    const idle: Item[] = [];
    let seq = 0;
    for (let step = 0; step < 20_000; step++) {
      const r = random();
      if (r < 0.45 || live.size === 0) {
        const item = idle.pop() ?? new Item(`i${step}`, 0, 0);
        item.priority = Math.floor(random() * 4) - 1;
        item.seq = ++seq;
        q.push(item);
        live.add(item);
      } else if (r < 0.7) {
        const next = q.shift()!;
        expect(next).toBe([...live].sort(order)[0]);
        live.delete(next);
        idle.push(next);
      } else {
        const victim = [...live][Math.floor(random() * live.size)]!;
        q.remove(victim);
        expect(victim.ready).toBeNull();
        live.delete(victim);
        idle.push(victim);
      }
      expect(q.size).toBe(live.size);
    }
    expect([...q.values()]).toEqual([...live].sort(order));
    q.clear();
    expect(q.size).toBe(0);
    expect([...live].every((i) => i.ready === null)).toBe(true);
  });
});
