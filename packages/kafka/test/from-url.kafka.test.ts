/** The gateway's `kafka://…?store=…` form: parsing, and a driver built from it running a job (store = Redis). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { createDriverFromUrl, parseKafkaUrl } from '../src/index.js';
import { kafkaAvailable, startBroker, type TestBroker } from './support/broker.js';
import { REDIS_URL, redisAvailable, uniqueNamespace } from './support/stores.js';

describe('parseKafkaUrl', () => {
  it('reads brokers, the store URL and the prefix', () => {
    expect(parseKafkaUrl('kafka://a:9092,b:9093?store=redis://127.0.0.1:6379&prefix=app')).toEqual({
      brokers: ['a:9092', 'b:9093'],
      store: 'redis://127.0.0.1:6379',
      prefix: 'app',
    });
    expect(parseKafkaUrl(`kafka://a:9092?store=${encodeURIComponent('postgres://u@h/db?schema=s')}`).store).toBe('postgres://u@h/db?schema=s');
  });

  it('refuses a URL without a store or of another scheme', () => {
    expect(() => parseKafkaUrl('kafka://a:9092')).toThrow(/names no store/);
    expect(() => parseKafkaUrl('redis://a:9092?store=redis://x')).toThrow(/expected kafka:\/\//);
  });
});

describe.skipIf(!kafkaAvailable || !redisAvailable)('createDriverFromUrl against the test broker (store = Redis)', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({ rebalanceDelayMs: 100 });
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it('builds a driver whose engine runs a job: enqueue, dispatch to pending, fetch, ack', { timeout: 60_000 }, async () => {
    const prefix = uniqueNamespace();
    const driver = await createDriverFromUrl(`kafka://${broker.brokers.join(',')}?store=${encodeURIComponent(REDIS_URL)}&prefix=${prefix}`);
    const engine = new Engine({ driver });
    try {
      expect(driver.capabilities.dispatchLog).toBe(true);
      const pushed = await engine.enqueue({ type: 'url.job', args: [1], options: { queue: 'q' } });
      const fetched = await engine.fetch({ queues: ['q'], count: 1, wait_ms: 10_000 });
      expect(fetched.jobs.map((j) => j.id)).toEqual([pushed.job.id]);
      await engine.ack({ job_id: pushed.job.id });
      expect((await driver.jobGet(pushed.job.id))?.job.state).toBe('completed');
    } finally {
      await engine.stop();
      await driver.reset();
      await driver.close();
    }
  });
});
