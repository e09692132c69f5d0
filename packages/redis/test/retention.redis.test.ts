/** Retention: the engine's pruner deletes finished jobs past their retention, leaving no key or index entry behind. */
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, ManualClock } from '@ojskit/core';
import type { RedisDriver } from '../src/index.js';
import { indexViolations } from './invariants.js';
import { dispose, redisAvailable, testDriver } from './support.js';

let driver: RedisDriver | undefined;
afterEach(async () => {
  if (driver) await dispose(driver);
});

describe.skipIf(!redisAvailable)('retention on Redis', () => {
  it('prunes completed, cancelled and discarded jobs after their retention; dead letters after theirs', async () => {
    driver = testDriver();
    const clock = new ManualClock();
    const engine = new Engine({
      driver,
      clock,
      retention: { completedMs: 60_000, cancelledMs: 60_000, discardedMs: 60_000, deadLetterMs: 3_600_000 },
    });
    const queue = 'kept';
    await engine.enqueueBatch({ jobs: Array.from({ length: 300 }, (_, i) => ({ type: 'test.noop', args: [i], options: { queue } })) });
    await engine.enqueue({ type: 'test.fail_always', args: [], options: { queue, retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } } });
    const { jobs } = await engine.fetch({ queues: [queue], count: 301, worker_id: 'w' });
    const failing = jobs.find((j) => j.type === 'test.fail_always')!;
    await engine.nack({ job_id: failing.id, error: { code: 'boom', message: 'boom' } });
    await engine.ackMany({ acks: jobs.filter((j) => j !== failing).map((j) => ({ job_id: j.id })) });
    const keyCount = async () => (await driver!.redis.keys(`${driver!.prefix}:*`)).filter((k) => !k.includes(':lease:')).length;
    expect((await driver.jobCounts({ queue })).completed).toBe(300);
    const before = await keyCount();

    clock.advance(60_001);
    await engine.runMaintenance();
    expect(await driver.jobCounts({ queue })).toMatchObject({ completed: 0, discarded: 1 });
    expect(await keyCount()).toBeLessThan(before - 299);
    expect(await indexViolations(driver)).toEqual([]);

    clock.advance(3_600_000);
    await engine.runMaintenance();
    expect((await driver.jobCounts({ queue })).discarded).toBe(0);
    const left = (await driver.redis.keys(`${driver.prefix}:*`)).map((k) => k.slice(driver!.prefix.length + 1)).filter((k) => !k.startsWith('lease:'));
    // per queue: its record, counts, FIFO counter and active index (only the anchor that keeps it a skiplist);
    // the event stream, bounded by eventStreamMaxLen
    expect(left.sort()).toEqual(['events', 'queues', `{${queue}}:active`, `{${queue}}:counts`, `{${queue}}:meta`, `{${queue}}:seq`]);
    expect(await driver.redis.zcard(`${driver.prefix}:{${queue}}:active`)).toBe(1);
    await engine.stop();
  });
});
