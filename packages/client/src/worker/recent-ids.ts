/**
 * The ids of the jobs a worker fetched most recently, forgetting the oldest past `max`. A `job.enqueued` event
 * can reach a worker after it already fetched that job (events travel apart from the FETCH answer, through
 * a Redis stream or NOTIFY): the worker looks the id up here so such a late event does not send it fetching for a job
 * it already has.
 */
export class RecentIds {
  private readonly ids = new Set<string>();
  /**
   * The remembered ids in arrival order, as a ring: the oldest is found by index. Finding it through the set's
   * iterator costs a walk over every entry deleted since the set last rehashed, once per fetched job.
   */
  private readonly order: string[] = [];
  private next = 0;

  constructor(private readonly max: number) {}

  add(id: string): void {
    if (this.max <= 0 || this.ids.has(id)) return;
    if (this.order.length < this.max) this.order.push(id);
    else {
      this.ids.delete(this.order[this.next]!);
      this.order[this.next] = id;
      this.next = (this.next + 1) % this.max;
    }
    this.ids.add(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
