/**
 * Queue configurations as the enqueue path reads them: every configured queue, read from the store at most
 * once per `ttlMs` rather than once per enqueue (an extra round trip on the hot path). A change made through
 * this engine applies at once; one made through another engine sharing the store, within `ttlMs`.
 */
import type { QueueConfigRecord } from '../driver/admin.js';
import type { Driver } from '../driver/driver.js';
import type { Clock } from '../clock.js';

/** How long another engine's change to a queue's bound may take to reach this one. */
export const QUEUE_CONFIG_TTL_MS = 1_000;

export class QueueConfigCache {
  private configs: ReadonlyMap<string, QueueConfigRecord> | undefined;
  private readAt = -Infinity;
  private loading: Promise<ReadonlyMap<string, QueueConfigRecord>> | undefined;
  /** Bumped by `invalidate`: a read that began before a change must not pass for a fresh one. */
  private generation = 0;

  constructor(
    private readonly driver: Driver,
    private readonly clock: Clock,
    private readonly ttlMs = QUEUE_CONFIG_TTL_MS,
  ) {}

  /** Every configured queue by name; synchronous while the copy is fresh, so a usual enqueue waits on nothing. */
  current(): ReadonlyMap<string, QueueConfigRecord> | Promise<ReadonlyMap<string, QueueConfigRecord>> {
    if (this.configs !== undefined && this.clock.now() - this.readAt < this.ttlMs) return this.configs;
    this.loading ??= this.load();
    return this.loading;
  }

  /** Forgets the copy: the next read goes to the store. */
  invalidate(): void {
    this.generation++;
    this.readAt = -Infinity;
    this.loading = undefined;
  }

  private async load(): Promise<ReadonlyMap<string, QueueConfigRecord>> {
    const generation = this.generation;
    const at = this.clock.now();
    let list: QueueConfigRecord[];
    try {
      list = await this.driver.queueConfigList();
    } catch (error) {
      if (generation === this.generation) this.loading = undefined;
      throw error;
    }
    const configs = new Map(list.map((c) => [c.name, c]));
    if (generation === this.generation) {
      this.configs = configs;
      this.readAt = at;
      this.loading = undefined;
    }
    return configs;
  }
}
