/** The engine's background services over the memory driver: each pass under a lease, renewed at half its time. */
import { describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { MemoryDriver } from '../src/index.js';

describe('background service leases', () => {
  it('runs every pass under its lease but renews it only once half of it has gone; another engine waits it out', async () => {
    const driver = new MemoryDriver();
    const acquired: string[] = [];
    const promotions: number[] = [];
    const leaseAcquire = driver.leaseAcquire.bind(driver);
    driver.leaseAcquire = async (params) => {
      const held = await leaseAcquire(params);
      // The lease's own clock (`now`, from which it lasts `ttlMs`), not the time the call returned.
      acquired.push(`${params.owner}:${params.name}:${held}:${params.now}`);
      return held;
    };
    const jobPromote = driver.jobPromote.bind(driver);
    driver.jobPromote = async (params) => {
      promotions.push(Date.now());
      return jobPromote(params);
    };
    // promote every 20 ms: its lease lasts 1 s (the least), renewed after 0.5 s
    const services = { promoteMs: 20, rescueMs: 60_000, expireMs: 60_000, cronMs: 60_000, pruneMs: 60_000 };
    const a = new Engine({ driver, services, instanceId: 'a' }).start();
    const b = new Engine({ driver, services, instanceId: 'b' }).start();
    // Wait for passes, not for a fixed time: on a loaded machine a 20 ms timer fires far later than asked.
    const started = Date.now();
    try {
      while (promotions.length < 30 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await a.close();
      await b.close();
    }
    const elapsed = Date.now() - started;
    const wins = acquired
      .filter((x) => x.includes(':service:promote') && x.includes(':true:'))
      .map((x) => ({ owner: x.split(':')[0], at: Number(x.split(':').at(-1)) }));
    expect(promotions.length).toBeGreaterThanOrEqual(30);
    expect(wins.length).toBeGreaterThanOrEqual(1);
    // The lease renewed at most once per half lease (500 ms) of the time that passed, not at every pass…
    expect(wins.length).toBeLessThanOrEqual(Math.ceil(elapsed / 500) + 1);
    expect(wins.length).toBeLessThan(promotions.length);
    // …and never held by both: when the other engine takes it, the last holder's 1 s lease had run out (by the
    // lease's clock).
    for (let i = 1; i < wins.length; i++) {
      if (wins[i]!.owner !== wins[i - 1]!.owner) expect(wins[i]!.at - wins[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
    }
  });
});
