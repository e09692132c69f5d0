/**
 * Rate limits across processes on PostgreSQL (beyond the contract's `rate-limit.*` cases, which run one
 * engine): engines on separate pools racing FETCHes never exceed a key's concurrency or a queue's spacing
 * together, because the limited claim counts under the rate_limits row locks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';

describe.runIf(HAVE_PG)('rate limits on PostgreSQL (several engines)', () => {
  let db: TestDatabase | undefined;
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await db?.drop();
    db = undefined;
  });

  it('engines on separate pools racing FETCHes claim at most `concurrency` jobs of a key, and one spaced job, between them', async () => {
    db = await openTestDatabase();
    const a = new Engine({ driver: db.driver });
    const b = new Engine({ driver: db.peer() });
    engines.push(a, b);
    for (let i = 0; i < 20; i++) await a.enqueue({ type: 'rl.job', args: [i], options: { queue: 'rl', rate_limit: { concurrency: 3, key: 'shared' } } });
    for (let i = 0; i < 5; i++) await a.enqueue({ type: 'rl.job', args: [i], options: { queue: 'spaced', rate_limit: { max_per_second: 0.2 } } });
    const race = (queue: string) =>
      Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).fetch({ queues: [queue], count: 5, worker_id: `w${i}` })));
    const claimed = (await race('rl')).flatMap((r) => r.jobs);
    expect(claimed).toHaveLength(3);
    expect(new Set(claimed.map((j) => j.id)).size).toBe(3);
    expect((await race('spaced')).flatMap((r) => r.jobs)).toHaveLength(1);
    expect((await b.getQueueRateLimits('rl')).keys).toEqual([{ key: 'shared', active: 3, concurrency: 3 }]);
  });

  it('a waiting FETCH claims a spaced job once the spacing ends (timed by the database)', async () => {
    db = await openTestDatabase();
    const engine = new Engine({ driver: db.driver });
    engines.push(engine);
    for (let i = 0; i < 2; i++) await engine.enqueue({ type: 'rl.job', args: [i], options: { queue: 'spaced', rate_limit: { max_per_second: 4 } } });
    expect((await engine.fetch({ queues: ['spaced'], count: 2 })).jobs).toHaveLength(1);
    const started = Date.now();
    const res = await engine.fetch({ queues: ['spaced'], count: 2, wait_ms: 10_000 });
    expect(res.jobs).toHaveLength(1);
    // woken when the 250 ms spacing ends, not at the end of the wait
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
