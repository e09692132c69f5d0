/**
 * The dispatcher: a consumer-group member over the dispatch topic. For each batch it records in the store that
 * the log delivered the jobs (`DISPATCH_EFFECTS.dispatch`: `available → pending`, guarded, so a re-delivered
 * or duplicate record of a job that moved on is skipped), and commits the batch's offset only after those
 * writes resolved (sent behind the handler: `Committer`): a dispatcher that dies before its commit has the
 * records delivered again, and the guards make that harmless. A store that fails the writes fails the batch,
 * which is fetched again. The engine never sees these moves, so the dispatcher publishes their `job.pending`
 * events itself (core's `dispatchEvents`), before claims waiting for the jobs may take them and before the
 * commit: a re-delivered batch finds the jobs moved on and publishes nothing twice.
 */
import { dispatchEvents, DISPATCH_EFFECTS, effectChanges, noteOf, type DispatchedMove, type Driver } from '@ojskit/core/driver';
import type { OjsEvent } from '@ojskit/core';
import { toTimestamp } from '@ojskit/core/formats';
import type { ConsumedBatch, KafkaClient, KafkaConsumer } from '../port/types.js';
import { Committer } from './committer.js';
import { decodeEntry, dispatchTopic } from './dispatch-record.js';

/**
 * The dispatcher's longest idle fetch. A Kafka broker answers a fetch as soon as a record arrives, whatever the
 * wait; the test broker (librdkafka's mock) only at the end of it, so there an idle dispatcher sees a record up
 * to this late, and enqueue→start latency follows it. 10 ms keeps that under the latency target at the price of
 * about 100 idle fetches per second per broker (README, "Costs"); with a real broker a longer wait (Kafka's
 * clients use 500 ms) costs no latency and fewer fetches.
 */
export const DEFAULT_MAX_WAIT_MS = 10;

export interface DispatcherOptions {
  client: KafkaClient;
  store: Driver;
  prefix: string;
  /** Called with the ids of each batch once its writes resolved (dispatched or found moved on). */
  onRecorded: (ids: string[]) => void;
  sessionTimeoutMs?: number;
  maxWaitMs?: number;
  /** The clock of dispatch instants (`x.dispatchedAt`); the store driver never reads one. */
  now?: () => number;
  /** Publishes the `job.pending` events of each batch's moves (the store's event transport); none when absent. */
  publish?: (events: readonly OjsEvent[]) => void | Promise<void>;
  /** Told when a batch's events could not be published (the moves stand; only their events are missing). */
  log?: (line: string) => void;
}

export class Dispatcher {
  private constructor(
    private readonly consumer: KafkaConsumer,
    private readonly committer: Committer,
    private readonly flushMs: number,
  ) {}

  static async start(options: DispatcherOptions): Promise<Dispatcher> {
    const { store, onRecorded } = options;
    const now = options.now ?? Date.now;
    const onBatch = async (batch: ConsumedBatch): Promise<void> => {
      const entries = batch.records.map(decodeEntry).filter((e) => e !== null);
      const at = now();
      const atIso = toTimestamp(at);
      const effect = DISPATCH_EFFECTS.dispatch;
      const changes = effectChanges(effect, at, atIso);
      const note = noteOf(effect, atIso);
      // One guarded write per job, issued together: the store adapters send concurrent transitions as one
      // round trip (Redis coalesces them into one script call). The record's queue spares the store a lookup.
      const results = await Promise.all(
        entries.map((e) =>
          store.jobTransition({ id: e.id, queue: e.queue, from: effect.from, to: effect.to, set: changes.set, x: changes.x, returning: 'summary', note }),
        ),
      );
      if (options.publish) {
        const moves: DispatchedMove[] = [];
        for (const r of results) if (r.ok && 'summary' in r) moves.push({ from: r.from, summary: r.summary });
        if (moves.length > 0) {
          try {
            await options.publish(dispatchEvents(moves, atIso));
          } catch (error) {
            options.log?.(`dispatch: job.pending events not published: ${String(error)}`);
          }
        }
      }
      // The writes resolved: claims waiting for these jobs may go (the commit is not theirs to wait for).
      onRecorded(entries.map((e) => e.id));
      if (batch.isStale()) return;
      const last = batch.records[batch.records.length - 1];
      if (last) committer.commit(batch, String(BigInt(last.offset) + 1n));
    };
    const committer = new Committer(() => consumer, options.log ?? (() => {}));
    const consumer = await options.client.consume({
      groupId: `${options.prefix}.dispatchers`,
      topics: [dispatchTopic(options.prefix)],
      onBatch,
      fromBeginning: true,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
      heartbeatIntervalMs: Math.min(3_000, Math.floor((options.sessionTimeoutMs ?? 10_000) / 3)),
      maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
      partitionsConsumedConcurrently: 4,
    });
    return new Dispatcher(consumer, committer, options.sessionTimeoutMs ?? 10_000);
  }

  /** Resolves once the member holds partitions. */
  joined(timeoutMs?: number): Promise<unknown> {
    return this.consumer.joined(timeoutMs);
  }

  /** Sends the commits asked for (bounded by the session timeout, after which the group moves on anyway), then leaves. */
  async close(): Promise<void> {
    await this.committer.flush(this.flushMs);
    this.committer.close();
    await this.consumer.close();
  }
}
