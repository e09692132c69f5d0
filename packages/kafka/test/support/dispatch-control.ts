/**
 * Test support: the shared suites' control of the Kafka driver's dispatch log (`DispatchLogControl` of
 * @ojskit/contract). Holding a queue happens between the driver and the broker: a port client whose producer
 * keeps the dispatch records of held queues back (the record's key is its queue), so those jobs stay
 * `available` in the store for as long as a case needs to move them itself; releasing produces them.
 */
import type { DispatchLogControl } from '@ojskit/contract';
import { STATE_ROLES } from '@ojskit/core/driver';
import type { KafkaClient, KafkaDriver, KafkaProducer, ProduceBatch, ProduceRecord } from '../../src/index.js';
import { dispatchTopic } from '../../src/driver/dispatch-record.js';

/** Where the relay produces jobs from: a released job has been delivered once it left this state. */
const READY = STATE_ROLES.promoted;

/** How long settling may take before the case fails (the log answers in milliseconds; this is for a loaded machine). */
const SETTLE_MS = 30_000;

/** Held queues of one namespace and the records kept back, shared by the namespace's drivers (the case's and its peers). */
export class HeldQueues {
  private readonly queues = new Set<string>();
  private kept: Array<{ queue: string; record: ProduceRecord; producer: KafkaProducer }> = [];

  private readonly topic: string;

  constructor(prefix: string) {
    this.topic = dispatchTopic(prefix);
  }

  /** Ids produced to the dispatch topic (by any driver of the namespace, peers too) and not yet consumed. */
  private readonly unconsumed = new Set<string>();

  /** Forgets every hold and what it kept back (a pooled driver handed to the next case). */
  clear(): void {
    this.queues.clear();
    this.kept = [];
    this.unconsumed.clear();
  }

  /** Whether every dispatch record produced so far was handled by the dispatcher. */
  get caughtUp(): boolean {
    return this.unconsumed.size === 0;
  }

  has(queue: string): boolean {
    return this.queues.has(queue);
  }

  hold(queue: string): void {
    this.queues.add(queue);
  }

  /** Stops holding `queue`; the records kept back, produced; their jobs' ids. */
  async release(queue: string): Promise<string[]> {
    this.queues.delete(queue);
    const mine = this.kept.filter((k) => k.queue === queue);
    this.kept = this.kept.filter((k) => k.queue !== queue);
    for (const producer of new Set(mine.map((k) => k.producer))) {
      await producer.produce([{ topic: this.topic, records: mine.filter((k) => k.producer === producer).map((k) => k.record) }]);
    }
    return mine.map((k) => idOf(k.record.value));
  }

  /** `client` with a producer that keeps back the dispatch records of held queues. */
  wrap(client: KafkaClient): KafkaClient {
    return {
      producer: async (options) => {
        const inner = await client.producer(options);
        return {
          produce: async (batches: ProduceBatch[]) => {
            const sent = batches.map((b) => this.filter(b, inner)).filter((b) => b.records.length > 0);
            for (const b of sent) if (b.topic === this.topic) for (const r of b.records) this.unconsumed.add(idOf(r.value));
            return inner.produce(sent);
          },
          close: () => inner.close(),
        };
      },
      // A peer's relay produces records this process's dispatcher handles: settling waits for those as well.
      consume: (options) =>
        client.consume({
          ...options,
          onBatch: async (batch) => {
            await options.onBatch(batch);
            for (const r of batch.records) this.unconsumed.delete(idOf(r.value));
          },
        }),
      admin: () => client.admin(),
    };
  }

  private filter(batch: ProduceBatch, producer: KafkaProducer): ProduceBatch {
    if (batch.topic !== this.topic) return batch;
    const records: ProduceRecord[] = [];
    for (const record of batch.records) {
      const queue = record.key === undefined || record.key === null ? undefined : String(record.key);
      if (queue !== undefined && this.queues.has(queue)) this.kept.push({ queue, record, producer });
      else records.push(record);
    }
    return { ...batch, records };
  }
}

/** The job id a dispatch record names. */
function idOf(value: ProduceRecord['value'] | null): string {
  return (JSON.parse(String(value)) as { id: string }).id;
}

/** The contract's control over `driver`, whose client was wrapped by `held`. */
export function dispatchControl(driver: KafkaDriver, held: HeldQueues): DispatchLogControl {
  const settle = async (): Promise<void> => {
    if (!(await driver.dispatched({ timeoutMs: SETTLE_MS, except: (queue) => held.has(queue) }))) {
      throw new Error(`the dispatch log did not deliver this process's ready jobs within ${SETTLE_MS} ms`);
    }
    const deadline = Date.now() + SETTLE_MS;
    while (!held.caughtUp) {
      if (Date.now() > deadline) throw new Error(`the dispatcher did not handle the records peers produced within ${SETTLE_MS} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    settle,
    hold: (queue) => held.hold(queue),
    release: async (queue) => {
      const ids = await held.release(queue);
      // The driver may have stopped waiting for these (a claim drops entries it waited claimWaitMs for): wait
      // until the dispatcher moved each released job on from `available`, as its delivery does.
      const deadline = Date.now() + SETTLE_MS;
      for (const id of ids) {
        while ((await driver.jobGet(id))?.job.state === READY) {
          if (Date.now() > deadline) throw new Error(`released job ${id} was not delivered within ${SETTLE_MS} ms`);
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await settle();
    },
  };
}
