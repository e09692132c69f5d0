/** An indexed binary min-heap keyed by two numbers, with O(log n) removal of any node. */

/**
 * One element of a heap. The heap keeps `index` and `heap` current so the node can be removed or
 * re-keyed in O(log n) from outside; once it leaves, `index` is -1 and `heap` null, and the node may be
 * inserted again (into this heap or another), which spares an allocation per move.
 */
export interface HeapNode<T> {
  /** Primary key (smaller first). */
  a: number;
  /** Tie breaker (smaller first). */
  b: number;
  index: number;
  /** The heap holding the node, if any. */
  heap: BinaryHeap<T> | null;
  readonly value: T;
}

/** A node for `value` in no heap yet. */
export function heapNode<T>(value: T): HeapNode<T> {
  return { a: 0, b: 0, index: -1, heap: null, value };
}

/**
 * Min-heap ordered by `(a, b)`.
 *
 * Indexed rather than lazily deleted: jobs leave most indexes from the middle (an ack leaves the active
 * index long before its deadline), and lazy deletion would keep every such tombstone until its key
 * reached the top, which under a steady load is unbounded garbage.
 *
 * @example
 * const heap = new BinaryHeap<string>();
 * heap.push('late', 20, 0); heap.push('soon', 10, 0);
 * heap.pop()?.value; // 'soon'
 */
export class BinaryHeap<T> {
  private readonly nodes: Array<HeapNode<T>> = [];

  get size(): number {
    return this.nodes.length;
  }

  /** Adds a value; keep the returned node to remove or re-key it later. */
  push(value: T, a: number, b: number): HeapNode<T> {
    const node = heapNode(value);
    this.insert(node, a, b);
    return node;
  }

  /** Adds a node that is in no heap. */
  insert(node: HeapNode<T>, a: number, b: number): void {
    if (node.heap !== null) throw new Error('BinaryHeap.insert: node is already in a heap');
    node.a = a;
    node.b = b;
    node.heap = this;
    node.index = this.nodes.length;
    this.nodes.push(node);
    this.up(node.index);
  }

  /** The smallest node, left in place. */
  peek(): HeapNode<T> | undefined {
    return this.nodes[0];
  }

  /** Removes and returns the smallest node. */
  pop(): HeapNode<T> | undefined {
    const nodes = this.nodes;
    const top = nodes[0];
    if (top === undefined) return undefined;
    const last = nodes.pop()!;
    if (last !== top) {
      nodes[0] = last;
      last.index = 0;
      this.down(0);
    }
    top.index = -1;
    top.heap = null;
    return top;
  }

  /** Removes a node that is in this heap (no-op when it already left). */
  remove(node: HeapNode<T>): void {
    if (node.heap !== this) return;
    const i = node.index;
    const nodes = this.nodes;
    const last = nodes.pop()!;
    node.index = -1;
    node.heap = null;
    if (last === node) return;
    nodes[i] = last;
    last.index = i;
    if (!this.down(i)) this.up(i);
  }

  /** Changes a node's keys and restores the heap order. */
  update(node: HeapNode<T>, a: number, b: number): void {
    node.a = a;
    node.b = b;
    if (node.heap !== this) return;
    if (!this.down(node.index)) this.up(node.index);
  }

  /**
   * Up to `limit` nodes whose primary key is ≤ `maxA`, smallest first, without removing anything.
   * Walks only the part of the tree it returns: O(k log k) for k results.
   */
  smallest(limit: number, maxA: number): Array<HeapNode<T>> {
    const out: Array<HeapNode<T>> = [];
    const nodes = this.nodes;
    if (limit <= 0 || nodes.length === 0) return out;
    // Frontier of candidate positions, itself a small heap ordered like the main one.
    const frontier = new BinaryHeap<number>();
    const root = nodes[0]!;
    if (root.a <= maxA) frontier.push(0, root.a, root.b);
    while (out.length < limit) {
      const next = frontier.pop();
      if (next === undefined) break;
      const i = next.value;
      out.push(nodes[i]!);
      for (const c of [2 * i + 1, 2 * i + 2]) {
        const child = nodes[c];
        if (child !== undefined && child.a <= maxA) frontier.push(c, child.a, child.b);
      }
    }
    return out;
  }

  /** Every node, in no particular order. */
  values(): IterableIterator<HeapNode<T>> {
    return this.nodes.values();
  }

  clear(): void {
    for (const node of this.nodes) {
      node.index = -1;
      node.heap = null;
    }
    this.nodes.length = 0;
  }

  private less(x: HeapNode<T>, y: HeapNode<T>): boolean {
    return x.a < y.a || (x.a === y.a && x.b < y.b);
  }

  /** Moves the node at `i` towards the root; true when it moved. */
  private up(i: number): boolean {
    const nodes = this.nodes;
    const node = nodes[i]!;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = nodes[p]!;
      if (!this.less(node, parent)) break;
      nodes[i] = parent;
      parent.index = i;
      i = p;
    }
    nodes[i] = node;
    node.index = i;
    return i !== start;
  }

  /** Moves the node at `i` towards the leaves; true when it moved. */
  private down(i: number): boolean {
    const nodes = this.nodes;
    const n = nodes.length;
    const node = nodes[i]!;
    const start = i;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && this.less(nodes[r]!, nodes[l]!)) c = r;
      const child = nodes[c]!;
      if (!this.less(child, node)) break;
      nodes[i] = child;
      child.index = i;
      i = c;
    }
    nodes[i] = node;
    node.index = i;
    return i !== start;
  }
}
