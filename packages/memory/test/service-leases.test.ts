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
      acquired.push(`${params.owner}:${params.name}:${held}`);
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
    try {
      await new Promise((r) => setTimeout(r, 1_300));
    } finally {
      await a.close();
      await b.close();
    }
    const promoteLeases = acquired.filter((x) => x.includes(':service:promote'));
    const won = promoteLeases.filter((x) => x.endsWith(':true'));
    const owners = new Set(won.map((x) => x.split(':')[0]));
    // one engine held the promoter's lease throughout, renewing it two or three times in 1.3 s
    expect(owners.size).toBe(1);
    expect(won.length).toBeGreaterThanOrEqual(2);
    expect(won.length).toBeLessThanOrEqual(4);
    // …while it promoted at every pass (~60 in 1.3 s at 20 ms), many more than it called for the lease
    expect(promotions.length).toBeGreaterThan(4 * won.length);
  });
});
