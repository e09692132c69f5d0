/** Test support: an `onBatch` handler that keeps what it receives and lets a test wait for a count. */
import type { ConsumedBatch, ConsumedRecord, TopicPartitionOffset } from '../../src/index.js';

export class Collector {
  readonly records: ConsumedRecord[] = [];
  private waiters: Array<() => void> = [];

  /** Pass as `onBatch`; records every batch's records. */
  readonly onBatch = async (batch: ConsumedBatch): Promise<void> => {
    this.records.push(...batch.records);
    for (const wake of this.waiters.splice(0)) wake();
  };

  /** Values of the received records, as text. */
  values(): string[] {
    return this.records.map((r) => r.value?.toString() ?? '');
  }

  /** Resolves once `count` records arrived (or rejects after `timeoutMs`, naming how many did). */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ConsumedRecord[]> {
    const end = Date.now() + timeoutMs;
    while (this.records.length < count) {
      const left = end - Date.now();
      if (left <= 0) throw new Error(`expected ${count} records, received ${this.records.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.records;
  }

  /** Per partition, the position after the last received record: what a consumer commits when done. */
  positions(): TopicPartitionOffset[] {
    const next = new Map<string, TopicPartitionOffset>();
    for (const r of this.records) {
      const key = `${r.topic}:${r.partition}`;
      const offset = String(BigInt(r.offset) + 1n);
      const seen = next.get(key);
      if (!seen || BigInt(seen.offset) < BigInt(offset)) next.set(key, { topic: r.topic, partition: r.partition, offset });
    }
    return [...next.values()];
  }
}

/** Polls `check` until it returns true (or throws after `timeoutMs` with `what`). */
export async function eventually(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
