/**
 * The dispatcher's offset commits, sent behind the batch handler instead of inside it. kafkajs sends every
 * request to a broker over one connection, and a broker answers a connection's requests in order: a commit sent
 * to the group coordinator queues behind that connection's long-polling Fetch, which an idle partition holds for
 * the whole fetch wait. Awaited in the handler, that wait stopped the partition's next batch and every claim
 * waiting for the batch's jobs. The commit still follows the store writes it stands behind (the handler asks for
 * it only after they resolved), one request at a time per partition, newest offset only, and a failed one is
 * tried again while the partition's batches are current.
 */
import type { ConsumedBatch, KafkaConsumer, TopicPartitionOffset } from '../port/types.js';

interface PartitionCommits {
  /** The next offset to read, as far as the store recorded. */
  wanted: TopicPartitionOffset;
  committed: string | null;
  /** The latest batch's staleness: a revoked partition's commits stop (its next owner reads from the last commit). */
  isStale: () => boolean;
  running: Promise<void> | null;
}

export class Committer {
  private readonly partitions = new Map<string, PartitionCommits>();
  private closed = false;

  constructor(
    private readonly consumer: () => KafkaConsumer,
    private readonly log: (line: string) => void,
  ) {}

  /** Asks for `offset` (the next one to read) of the batch's partition to be committed. */
  commit(batch: ConsumedBatch, offset: string): void {
    const key = `${batch.topic}\u0000${batch.partition}`;
    const wanted = { topic: batch.topic, partition: batch.partition, offset };
    let p = this.partitions.get(key);
    if (p === undefined) this.partitions.set(key, (p = { wanted, committed: null, isStale: batch.isStale, running: null }));
    p.wanted = wanted;
    p.isStale = batch.isStale;
    if (p.running === null) {
      const part = p;
      part.running = this.run(part).finally(() => (part.running = null));
    }
  }

  private async run(p: PartitionCommits): Promise<void> {
    let backoff = 100;
    while (p.committed !== p.wanted.offset && !p.isStale() && !this.closed) {
      const target = p.wanted;
      try {
        await this.consumer().commit([target]);
        p.committed = target.offset;
        backoff = 100;
      } catch (error) {
        // A rebalance or the coordinator away: the records stay uncommitted (a re-delivery is harmless), and the
        // commit is tried again while this member still owns the partition.
        this.log(`dispatch: offset commit failed, retrying in ${backoff} ms: ${String(error)}`);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
  }

  /** Resolves once the commits asked for so far were sent and answered (or given up), or after `ms`. */
  async flush(ms: number): Promise<void> {
    const running = [...this.partitions.values()].flatMap((p) => (p.running ? [p.running] : []));
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(running), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /** Stops retrying (closing). */
  close(): void {
    this.closed = true;
  }
}
