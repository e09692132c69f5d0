/**
 * An idle SDK worker over the in-process engine on Redis: a job enqueued through the same engine is claimed
 * right behind its insert, so the FETCH answer and the job's `job.enqueued` event reach the worker together.
 * The worker must not take that event as a job its long-poll missed and fetch again for nothing.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { Client, Worker } from '@ojskit/client';
import { dispose, redisAvailable, testDriver } from './support.js';

describe.skipIf(!redisAvailable)('idle worker on Redis', () => {
  it('makes one long-polling fetch per job enqueued through its engine', async () => {
    const driver = testDriver();
    const engine = new Engine({ driver }).start();
    const client = new Client(engine);
    const worker = new Worker(engine, { queues: ['idle'], concurrency: 10, pollWaitMs: 2_000 });
    const claims: number[] = [];
    const claim = driver.jobClaim.bind(driver);
    driver.jobClaim = (params) => {
      claims.push(params.limit);
      return claim(params);
    };
    worker.register('t', () => 'ok');
    try {
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 10; i++) {
        const job = await client.enqueue('t', [i], { queue: 'idle' });
        expect((await client.waitFor(job.id, { timeoutMs: 5_000, pollIntervalMs: 5 })).state).toBe('completed');
      }
      expect(worker.stats.jobsAcked).toBe(10);
      // The first fetch, then one per job; each fetch claims once before it waits and once when woken.
      // The fetch after the last job leaves a turn or two after its ACK (which waitFor may see first), so
      // wait for it, then make sure no other follows.
      await expect.poll(() => worker.stats.fetchCalls, { timeout: 2_000, interval: 5 }).toBe(11);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(worker.stats.fetchCalls).toBe(11);
      expect(claims.length).toBeLessThanOrEqual(22);
    } finally {
      await worker.close();
      await engine.stop();
      await dispose(driver);
    }
  });
});
