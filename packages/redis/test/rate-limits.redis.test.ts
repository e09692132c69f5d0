/**
 * Rate limits across processes on Redis (beyond the contract's `rate-limit.*` cases, which run one engine):
 * two engines on two connections sharing one store never exceed a key's concurrency together, and the holders
 * of finished jobs are swept as claims go, so a key whose limit is never reached does not grow without bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { dispose, redisAvailable, testDriver, uniquePrefix } from './support.js';
import type { RedisDriver } from '../src/index.js';

describe.skipIf(!redisAvailable)('rate limits on Redis (several engines)', () => {
  const opened: Array<{ engine: Engine; driver: RedisDriver }> = [];
  const open = (prefix: string) => {
    const driver = testDriver({}, prefix);
    const engine = new Engine({ driver });
    opened.push({ engine, driver });
    return { engine, driver };
  };
  afterEach(async () => {
    for (const { engine, driver } of opened.splice(0)) {
      await engine.stop();
      await dispose(driver);
    }
  });

  it('two engines racing FETCHes claim at most `concurrency` jobs of a key between them', async () => {
    const prefix = uniquePrefix('rl');
    const a = open(prefix);
    const b = open(prefix);
    for (let i = 0; i < 20; i++) await a.engine.enqueue({ type: 'rl.job', args: [i], options: { queue: 'rl', rate_limit: { concurrency: 3, key: 'shared' } } });
    const fetches = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).engine.fetch({ queues: ['rl'], count: 5, worker_id: `w${i}` }));
    const claimed = (await Promise.all(fetches)).flatMap((r) => r.jobs);
    expect(claimed).toHaveLength(3);
    expect(new Set(claimed.map((j) => j.id)).size).toBe(3);
    const view = await b.engine.getQueueRateLimits('rl');
    expect(view.keys).toEqual([{ key: 'shared', active: 3, concurrency: 3 }]);
  });

  it('a waiting FETCH claims a spaced job once the spacing ends (timed by Redis)', async () => {
    const { engine } = open(uniquePrefix('rl'));
    for (let i = 0; i < 2; i++) await engine.enqueue({ type: 'rl.job', args: [i], options: { queue: 'spaced', rate_limit: { max_per_second: 4 } } });
    expect((await engine.fetch({ queues: ['spaced'], count: 2 })).jobs).toHaveLength(1);
    const started = Date.now();
    const res = await engine.fetch({ queues: ['spaced'], count: 2, wait_ms: 10_000 });
    expect(res.jobs).toHaveLength(1);
    // woken when the 250 ms spacing ends, not at the end of the wait
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('holders of finished jobs are swept: a key under a high limit keeps a small holder hash', async () => {
    const prefix = uniquePrefix('rl');
    const { engine, driver } = open(prefix);
    for (let i = 0; i < 100; i++) {
      await engine.enqueue({ type: 'rl.job', args: [i], options: { queue: 'sweep', rate_limit: { concurrency: 1_000, key: 'wide' } } });
      const { jobs } = await engine.fetch({ queues: ['sweep'], count: 1, worker_id: 'w' });
      expect(jobs).toHaveLength(1);
      await engine.ack({ job_id: jobs[0]!.id });
    }
    expect(await driver.redis.hlen(`${prefix}:rlk:wide`)).toBeLessThan(10);
  });
});
