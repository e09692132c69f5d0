/**
 * Queue configurations as the enqueue path reads them: every configured queue, read from the store when the
 * engine starts and again in the background once the copy is older than `ttlMs`, never once per enqueue (an
 * extra round trip on the hot path). An enqueue waits only for the very first read; afterwards it uses the
 * copy it has (so an insert is issued in the same turn as the call, which ordered drivers rely on). A change
 * made through this engine applies at once; one made through another engine sharing the store, within about
 * `ttlMs`.
 */
import type { QueueConfigRecord } from '../driver/admin.js';
import type { Driver } from '../driver/driver.js';
import type { Clock } from '../clock.js';

/** How long another engine's change to a queue's bound may take to reach this one. */
export const QUEUE_CONFIG_TTL_MS = 1_000;

export class QueueConfigCache {
  private configs: Map<string, QueueConfigRecord> | undefined;
  private readAt = -Infinity;
  private loading: Promise<ReadonlyMap<string, QueueConfigRecord>> | undefined;
  /** Changes made here while a read is out: the read may have missed them. */
  private readonly recent = new Map<string, QueueConfigRecord>();

  constructor(
    private readonly driver: Driver,
    private readonly clock: Clock,
    private readonly ttlMs = QUEUE_CONFIG_TTL_MS,
  ) {}

  /**
   * Every configured queue by name: synchronous once read (a stale copy starts a refresh and is used
   * meanwhile); a promise only before the first read.
   */
  current(): ReadonlyMap<string, QueueConfigRecord> | Promise<ReadonlyMap<string, QueueConfigRecord>> {
    if (this.configs === undefined) return (this.loading ??= this.load());
    if (this.clock.now() - this.readAt >= this.ttlMs && this.loading === undefined) {
      // a failed refresh keeps the copy; the next enqueue after the TTL tries again
      this.loading = this.load();
      this.loading.catch(() => undefined);
    }
    return this.configs;
  }

  /** Records a configuration this engine just stored, so the next enqueue applies it. */
  stored(record: QueueConfigRecord): void {
    this.configs?.set(record.name, record);
    if (this.loading !== undefined) this.recent.set(record.name, record);
  }

  private async load(): Promise<ReadonlyMap<string, QueueConfigRecord>> {
    const at = this.clock.now();
    try {
      const list = await this.driver.queueConfigList();
      const configs = new Map(list.map((c) => [c.name, c]));
      // a change made here while the read was out is at least as new as what the read saw
      for (const [name, c] of this.recent) configs.set(name, c);
      this.configs = configs;
      this.readAt = at;
      return configs;
    } finally {
      this.recent.clear();
      this.loading = undefined;
    }
  }
}
