/** A queue's `available` jobs: one FIFO per priority level, highest level first. O(1) claims. */

/** What the ready queue needs of a job. */
export interface ReadyItem {
  /** FIFO sequence, unique per entry into `available` (the driver's counter). */
  seq: number;
  /** Priority (higher first). */
  readonly priority: number;
  /** The level holding the item, if any (kept by the queue). */
  ready: ReadyLevel<ReadyItem> | null;
}

/**
 * The jobs of one priority in FIFO order. Removal from the middle is lazy: the slot stays until the head
 * passes it or a compaction drops it, and is recognised as stale because its item left the level or
 * re-entered it with a new sequence.
 */
export class ReadyLevel<T extends ReadyItem> {
  items: T[] = [];
  /** Sequence of each slot's item when it was added; a slot is live while its item still carries it. */
  seqs: number[] = [];
  head = 0;
  /** Live items. */
  live = 0;
  /** True while the level is in its queue's order of levels to take from. */
  listed = false;

  constructor(
    readonly priority: number,
    /** The queue the level belongs to. */
    readonly owner: object,
  ) {}

  isLive(i: number): boolean {
    const item = this.items[i]!;
    return item.ready === (this as ReadyLevel<ReadyItem>) && item.seq === this.seqs[i];
  }
}

/**
 * Priority levels, each a FIFO; the next job is the oldest of the highest level.
 *
 * Why not a binary heap keyed by (-priority, sequence): sequences only grow, so within a level arrival
 * order already is FIFO order, and an array per level makes push and take O(1) with sequential memory
 * access, where a heap of a deep backlog pays O(log n) scattered reads per claim. Levels are few in
 * practice (a handful of distinct priorities), so finding the highest one is cheap.
 *
 * @example
 * const q = new ReadyQueue<Item>();
 * q.push(low); q.push(high);
 * q.shift(); // high
 */
export class ReadyQueue<T extends ReadyItem> {
  /**
   * Every level this queue has used, kept while empty: a queue worked one job at a time empties its level
   * on every claim, and dropping it from a map and making it again on the next push cost a measurable share
   * of a lifecycle. An empty level holds no items, and a queue sees few distinct priorities.
   */
  private readonly levels = new Map<number, ReadyLevel<T>>();
  /** Levels that may hold items, highest priority first. */
  private readonly order: Array<ReadyLevel<T>> = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds an item that is in no level, behind the items of its priority with a lower sequence. */
  push(item: T): void {
    if (item.ready !== null) throw new Error('ReadyQueue.push: the item is already queued');
    let level = this.levels.get(item.priority);
    if (level === undefined) this.levels.set(item.priority, (level = new ReadyLevel<T>(item.priority, this)));
    if (!level.listed) this.list(level);
    const { items, seqs } = level;
    const n = items.length;
    if (n > level.head && seqs[n - 1]! > item.seq) {
      // Only a job whose priority changed while it waited arrives out of order: place it by sequence.
      let i = n;
      while (i > level.head && seqs[i - 1]! > item.seq) i--;
      items.splice(i, 0, item);
      seqs.splice(i, 0, item.seq);
    } else {
      items.push(item);
      seqs.push(item.seq);
    }
    item.ready = level as ReadyLevel<ReadyItem>;
    level.live++;
    this.count++;
  }

  /** The next item, left in place. */
  peek(): T | undefined {
    for (let o = 0; o < this.order.length;) {
      const level = this.order[o]!;
      this.skipStale(level);
      if (level.head < level.items.length) return level.items[level.head];
      this.dropLevel(o);
    }
    return undefined;
  }

  /**
   * The next item by `rank` (smaller first, equal ranks by sequence), left in place: the age boost's order
   * (core's priority/age-boost.ts). Only each level's oldest item competes: within a level, items entered in
   * sequence order, so their ranks rise with it. O(levels).
   */
  peekRanked(rank: (item: T) => number): T | undefined {
    let best: T | undefined;
    let bestRank = 0;
    for (let o = 0; o < this.order.length;) {
      const level = this.order[o]!;
      this.skipStale(level);
      if (level.head >= level.items.length) {
        this.dropLevel(o);
        continue;
      }
      const item = level.items[level.head]!;
      const r = rank(item);
      if (best === undefined || r < bestRank || (r === bestRank && item.seq < best.seq)) {
        best = item;
        bestRank = r;
      }
      o++;
    }
    return best;
  }

  /** Removes and returns the next item. */
  shift(): T | undefined {
    const item = this.peek();
    if (item !== undefined) this.remove(item);
    return item;
  }

  /** Removes an item if it is queued here. */
  remove(item: T): void {
    const level = item.ready as ReadyLevel<T> | null;
    if (level === null || level.owner !== this) return;
    item.ready = null;
    level.live--;
    this.count--;
    // The common case is the head (a claim): step past it now so the slot frees at once.
    if (level.items[level.head] === item) {
      level.head++;
      this.skipStale(level);
    } else if (level.items.length - level.head > 64 && level.live * 2 < level.items.length - level.head) {
      this.compact(level);
    }
    if (level.live === 0) {
      const o = this.order.indexOf(level);
      if (o >= 0) this.dropLevel(o);
    }
  }

  /** Every queued item, highest priority first, FIFO within a priority. */
  *values(): IterableIterator<T> {
    for (const level of this.order) {
      for (let i = level.head; i < level.items.length; i++) if (level.isLive(i)) yield level.items[i]!;
    }
  }

  /** Every queued item by `rank` (as `peekRanked` takes them): a merge of the levels' FIFOs. */
  *valuesRanked(rank: (item: T) => number): IterableIterator<T> {
    const cursors = this.order.map((level) => ({ level, i: level.head }));
    for (;;) {
      let best: { level: ReadyLevel<T>; i: number } | undefined;
      let bestItem: T | undefined;
      let bestRank = 0;
      for (const c of cursors) {
        while (c.i < c.level.items.length && !c.level.isLive(c.i)) c.i++;
        if (c.i >= c.level.items.length) continue;
        const item = c.level.items[c.i]!;
        const r = rank(item);
        if (bestItem === undefined || r < bestRank || (r === bestRank && item.seq < bestItem.seq)) {
          best = c;
          bestItem = item;
          bestRank = r;
        }
      }
      if (best === undefined || bestItem === undefined) return;
      best.i++;
      yield bestItem;
    }
  }

  clear(): void {
    for (const level of this.order) for (let i = level.head; i < level.items.length; i++) if (level.isLive(i)) level.items[i]!.ready = null;
    this.levels.clear();
    this.order.length = 0;
    this.count = 0;
  }

  private skipStale(level: ReadyLevel<T>): void {
    const n = level.items.length;
    while (level.head < n && !level.isLive(level.head)) level.head++;
    // Drop the consumed prefix once it is most of the array (amortised O(1) per item).
    if (level.head > 1024 && level.head * 2 > n) {
      level.items = level.items.slice(level.head);
      level.seqs = level.seqs.slice(level.head);
      level.head = 0;
    }
  }

  /** Rewrites a level keeping only live slots: bounds what lazily removed items hold on to. */
  private compact(level: ReadyLevel<T>): void {
    const items: T[] = [];
    const seqs: number[] = [];
    for (let i = level.head; i < level.items.length; i++) {
      if (level.isLive(i)) {
        items.push(level.items[i]!);
        seqs.push(level.seqs[i]!);
      }
    }
    level.items = items;
    level.seqs = seqs;
    level.head = 0;
  }

  /** Puts a level into the order of levels, by priority. */
  private list(level: ReadyLevel<T>): void {
    const order = this.order;
    let i = order.length;
    while (i > 0 && order[i - 1]!.priority < level.priority) i--;
    if (i === order.length) order.push(level);
    else order.splice(i, 0, level);
    level.listed = true;
  }

  /** Takes the level at `o` out of the order when it holds no live item, releasing what its slots hold. */
  private dropLevel(o: number): void {
    const level = this.order[o]!;
    for (let i = level.head; i < level.items.length; i++) if (level.isLive(i)) return;
    if (o === this.order.length - 1) this.order.pop();
    else this.order.splice(o, 1);
    level.listed = false;
    level.items.length = 0;
    level.seqs.length = 0;
    level.head = 0;
    level.live = 0;
  }
}
