/**
 * The ids of the most recent events, to drop the ones delivered twice: after a reconnect the stream replays
 * part of the log and the page also polls the log to fill the gap, so the same event can arrive by both.
 */
export class SeenIds {
  private readonly set = new Set<string>();
  private readonly order: string[];
  private next = 0;

  constructor(readonly capacity = 20_000) {
    this.order = new Array<string>(capacity);
  }

  /** Records `id`; false when it was already seen (a duplicate to drop). */
  add(id: string): boolean {
    if (this.set.has(id)) return false;
    const evicted = this.order[this.next];
    if (evicted !== undefined) this.set.delete(evicted);
    this.order[this.next] = id;
    this.next = (this.next + 1) % this.capacity;
    this.set.add(id);
    return true;
  }

  clear(): void {
    this.set.clear();
    this.order.fill(undefined as unknown as string);
    this.next = 0;
  }
}
