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
    return mine.map((k) => (JSON.parse(String(k.record.value)) as { id: string }).id);
  }

  /** `client` with a producer that keeps back the dispatch records of held queues. */
  wrap(client: KafkaClient): KafkaClient {
    return {
      producer: async (options) => {
        const inner = await client.producer(options);
        return {
          produce: (batches: ProduceBatch[]) => inner.produce(batches.map((b) => this.filter(b, inner)).filter((b) => b.records.length > 0)),
          close: () => inner.close(),
        };
      },
      consume: (options) => client.consume(options),
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

/** The contract's control over `driver`, whose client was wrapped by `held`. */
export function dispatchControl(driver: KafkaDriver, held: HeldQueues): DispatchLogControl {
  const settle = async (): Promise<void> => {
    if (!(await driver.dispatched({ timeoutMs: SETTLE_MS, except: (queue) => held.has(queue) }))) {
      throw new Error(`the dispatch log did not deliver this process's ready jobs within ${SETTLE_MS} ms`);
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
