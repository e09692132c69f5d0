/**
 * The ids of the jobs a worker fetched most recently, forgetting the oldest past `max`. A `job.enqueued` event
 * can reach a worker after it already fetched that job (events travel apart from the FETCH answer, through
 * pub/sub or NOTIFY): the worker looks the id up here so such a late event does not send it fetching for a job
 * it already has.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly max: number) {}

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
