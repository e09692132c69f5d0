/** A fixed-size ring of the newest items: the timeline's and the replay recorder's bounded memory. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count += 1;
  }

  /** Oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) out.push(this.items[(start + i) % this.capacity] as T);
    return out;
  }

  /** The newest `n`, newest first. */
  newest(n: number): T[] {
    const out: T[] = [];
    for (let i = 1; i <= Math.min(n, this.count); i++) out.push(this.items[(this.next - i + this.capacity) % this.capacity] as T);
    return out;
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.items.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}
