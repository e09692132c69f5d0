/** An intrusive, indexed binary min-heap keyed by two numbers, with O(log n) removal of any node. */

/**
 * What a heap element carries. The heap keeps `index` and `heap` current so the node can be removed or
 * re-keyed from outside in O(log n); once it leaves, `index` is -1 and `heap` null, and it may be
 * inserted again (into this heap or another). Intrusive: the stored object is its own node, so indexing
 * a job allocates nothing.
 */
export interface HeapNode {
  /** Primary key (smaller first). */
  a: number;
  /** Tie breaker (smaller first). */
  b: number;
  index: number;
  /** The heap holding the node, if any. */
  heap: BinaryHeap<HeapNode> | null;
}

/**
 * Min-heap of nodes ordered by `(a, b)`.
 *
 * Indexed rather than lazily deleted: jobs leave most indexes from the middle (an ack leaves the active
 * index long before its deadline), and lazy deletion would keep every such tombstone until its key
 * reached the top, which under a steady load is unbounded garbage.
 *
 * @example
 * const heap = new BinaryHeap<HeapNode & { name: string }>();
 * heap.push({ name: 'late', a: 0, b: 0, index: -1, heap: null }, 20, 0);
 * heap.push({ name: 'soon', a: 0, b: 0, index: -1, heap: null }, 10, 0);
 * heap.pop()?.name; // 'soon'
 */
export class BinaryHeap<T extends HeapNode> {
  private readonly nodes: T[] = [];

  get size(): number {
    return this.nodes.length;
  }

  /** Adds a node that is in no heap, under keys `(a, b)`. */
  push(node: T, a: number, b: number): void {
    if (node.heap !== null) throw new Error('BinaryHeap.push: the node is already in a heap');
    node.a = a;
    node.b = b;
    node.heap = this as BinaryHeap<HeapNode>;
    node.index = this.nodes.length;
    this.nodes.push(node);
    this.up(node.index);
  }

  /** Every node, in no particular order (a copy: the heap may change while the caller walks it). */
  nodesUnordered(): T[] {
    return this.nodes.slice();
  }

  /** The smallest node, left in place. */
  peek(): T | undefined {
    return this.nodes[0];
  }

  /** Removes and returns the smallest node. */
  pop(): T | undefined {
    const top = this.nodes[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes a node if it is in this heap. */
  remove(node: T): void {
    if (node.heap !== (this as BinaryHeap<HeapNode>)) return;
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
  update(node: T, a: number, b: number): void {
    node.a = a;
    node.b = b;
    if (node.heap !== (this as BinaryHeap<HeapNode>)) return;
    if (!this.down(node.index)) this.up(node.index);
  }

  /**
   * Up to `limit` nodes whose primary key is ≤ `maxA`, smallest first, without removing anything.
   * Walks only the part of the tree it returns: O(k log k) for k results.
   */
  smallest(limit: number, maxA: number): T[] {
    const out: T[] = [];
    const nodes = this.nodes;
    if (limit <= 0) return out;
    // Frontier of candidate positions, itself a small heap ordered like this one.
    const frontier = new BinaryHeap<HeapNode & { pos: number }>();
    const visit = (pos: number): void => {
      const node = nodes[pos];
      if (node !== undefined && node.a <= maxA) frontier.push({ pos, a: 0, b: 0, index: -1, heap: null }, node.a, node.b);
    };
    visit(0);
    while (out.length < limit) {
      const next = frontier.pop();
      if (next === undefined) break;
      out.push(nodes[next.pos]!);
      visit(2 * next.pos + 1);
      visit(2 * next.pos + 2);
    }
    return out;
  }

  /** Every node, in no particular order. */
  values(): IterableIterator<T> {
    return this.nodes.values();
  }

  clear(): void {
    for (const node of this.nodes) {
      node.index = -1;
      node.heap = null;
    }
    this.nodes.length = 0;
  }

  /** Moves the node at `i` towards the root; true when it moved. */
  private up(i: number): boolean {
    const nodes = this.nodes;
    const node = nodes[i]!;
    const { a, b } = node;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = nodes[p]!;
      if (!(a < parent.a || (a === parent.a && b < parent.b))) break;
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
    const { a, b } = node;
    const start = i;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      let child = nodes[l]!;
      const r = l + 1;
      if (r < n) {
        const right = nodes[r]!;
        if (right.a < child.a || (right.a === child.a && right.b < child.b)) {
          c = r;
          child = right;
        }
      }
      if (!(child.a < a || (child.a === a && child.b < b))) break;
      nodes[i] = child;
      child.index = i;
      i = c;
    }
    nodes[i] = node;
    node.index = i;
    return i !== start;
  }
}
