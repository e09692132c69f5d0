/**
 * The relay: produces the jobs that became `available` in the store to the dispatch log, behind the store
 * write that made them so (a record never names a job the store lacks). The store's `available` jobs are the
 * durable outbox: a job the relay lost (a crash between the store write and the produce, a produce that kept
 * failing) is still `available`, and the sweep, run under a store lease by one process at a time, produces
 * every job that stayed `available` longer than `sweepAfterMs` again. A duplicate record is harmless: the
 * dispatcher's move is guarded on `available`.
 */
import { STATE_ROLES, type Driver } from '@ojskit/core/driver';
import type { KafkaProducer } from '../port/types.js';
import { dispatchTopic, encodeEntry, type DispatchEntry } from './dispatch-record.js';

/** The state the relay produces jobs in: where a promotion, an ACTIVATE or a requeue puts a job. */
const READY = STATE_ROLES.promoted;

export interface RelayOptions {
  store: Driver;
  producer: KafkaProducer;
  prefix: string;
  /** Jobs `available` longer than this are produced again by the sweep (ms). */
  sweepAfterMs: number;
  /** How often the sweep runs (ms); 0 disables it. */
  sweepIntervalMs: number;
  /** Owner name of the sweep's lease. */
  owner: string;
  log: (line: string) => void;
}

export class Relay {
  private buffer: DispatchEntry[] = [];
  private flushing: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: RelayOptions) {
    if (options.sweepIntervalMs > 0) {
      this.sweepTimer = setInterval(() => void this.sweep().catch((e: unknown) => options.log(`relay sweep failed: ${String(e)}`)), options.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /** Queues entries for the log; resolves once they (and every entry before them) are produced. */
  push(entries: readonly DispatchEntry[]): Promise<void> {
    if (entries.length === 0 || this.closed) return Promise.resolve();
    this.buffer.push(...entries);
    return this.flush();
  }

  /** Produces everything buffered. */
  flush(): Promise<void> {
    if (this.flushing === null) {
      this.flushing = this.drain().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  private async drain(): Promise<void> {
    let backoff = 50;
    // A push made while a produce is out joins the next round of this loop.
    while (this.buffer.length > 0 && !this.closed) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.options.producer.produce([{ topic: dispatchTopic(this.options.prefix), records: batch.map(encodeEntry) }]);
        backoff = 50;
      } catch (error) {
        // Non-retriable errors only reach here (the port retries the rest): keep the entries, try again.
        this.options.log(`relay: produce failed, retrying in ${backoff} ms: ${String(error)}`);
        this.buffer = [...batch, ...this.buffer];
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
  }

  /** Produces again the jobs that stayed `available` too long; under a store lease, so one process sweeps. */
  async sweep(now = Date.now()): Promise<number> {
    const { store, sweepAfterMs, owner } = this.options;
    const lease = `kafka-relay-sweep`;
    if (!(await store.leaseAcquire({ name: lease, owner, ttlMs: Math.max(this.options.sweepIntervalMs * 2, 5_000), now }))) return 0;
    const stale: DispatchEntry[] = [];
    for (const queue of await store.queueList()) {
      const { jobs } = await store.jobList({ queue: queue.name, state: READY, limit: 1_000, offset: 0 });
      for (const job of jobs) {
        const since = Date.parse(job.enqueued_at ?? job.created_at);
        if (Number.isFinite(since) && now - since >= sweepAfterMs) stale.push({ id: job.id, queue: job.queue });
      }
    }
    await this.push(stale);
    return stale.length;
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.flush().catch(() => {});
    this.closed = true;
  }
}
