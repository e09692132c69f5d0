/**
 * The Kafka side of the benchmark: the SDK `Client` and `Worker` over an in-process `Engine` on a Kafka driver
 * whose store is the Redis adapter (created with `dispatchLog: true`), driven through the same `System` shape
 * as the Redis adapter and BullMQ in packages/redis/bench.
 */
import { Engine } from '@ojskit/core';
import { Client, Worker } from '@ojskit/client';
import { createRedisDriver } from '@ojskit/redis';
import { createKafkaDriver, type KafkaDriverOptions } from '../src/index.js';
import { CHUNK, CONCURRENCY, PRODUCERS, type System } from '../../redis/bench/ojskit-system.js';
import { latencyProbe } from '../../redis/bench/latency-probe.js';

export async function kafkaSystem(
  brokers: string[],
  url: string,
  prefix: string,
  options: Partial<KafkaDriverOptions> = {},
  name = 'kafka+redis',
): Promise<System> {
  const store = createRedisDriver(url, { prefix, checkMemoryPolicy: false, dispatchLog: true });
  const driver = await createKafkaDriver({ brokers, store, prefix, log: () => {}, ...options });
  await driver.dispatcherJoined();
  const engine = new Engine({ driver }).start();
  const client = new Client(engine);
  const noop = async () => undefined;
  return {
    name,
    async bulk(count, queue) {
      for (let i = 0; i < count; i += CHUNK) {
        await client.enqueueMany(Array.from({ length: Math.min(CHUNK, count - i) }, (_, k) => ({ type: 'bench.noop', args: [i + k], options: { queue } })));
      }
    },
    async oneByOne(count, queue) {
      let next = 0;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (next < count) await client.enqueue('bench.noop', [next++], { queue });
        }),
      );
    },
    async process(count, queue) {
      const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY });
      worker.register('bench.noop', noop);
      await new Promise<void>((resolve) => {
        let done = 0;
        worker.on('completed', () => {
          if (++done === count) resolve();
        });
        worker.start();
      });
      await worker.close();
    },
    latencyProbe(queue) {
      return latencyProbe(
        async (onStart, onCompleted) => {
          const worker = new Worker(engine, { queues: [queue], concurrency: CONCURRENCY });
          worker.register('bench.noop', async () => {
            onStart();
          });
          worker.on('completed', onCompleted);
          worker.start();
          return worker;
        },
        (i) => client.enqueue('bench.noop', [i], { queue }),
      );
    },
    async clear() {
      await driver.reset();
    },
    async close() {
      await driver.reset();
      await engine.close();
      await driver.close();
    },
  };
}
