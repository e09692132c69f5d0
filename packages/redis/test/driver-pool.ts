/**
 * Drivers for suites that open a subject per case (the driver contract opens one for each of its cases, and
 * peers for its races). A RedisDriver costs a few hundred milliseconds to build on a loaded machine (its
 * scripts are rendered per instance), far more than a case, so a released subject's prefix is emptied
 * (`reset`) and handed, with its driver and peers, to the next subject. `closeAll()` deletes and closes them.
 */
import type { RedisDriver } from '../src/index.js';
import { dispose, testDriver, uniquePrefix } from './support.js';

interface Slot {
  driver: RedisDriver;
  peers: RedisDriver[];
  prefix: string;
}

export class DriverPool {
  private readonly free: Slot[] = [];
  private readonly all: Slot[] = [];

  /** A driver on an empty prefix no live subject uses; `peer()` opens (or reuses) other connections to it. */
  acquire(): { driver: RedisDriver; peer: () => Promise<RedisDriver>; release: () => Promise<void> } {
    let slot = this.free.pop();
    if (slot === undefined) {
      const prefix = uniquePrefix('drv');
      slot = { driver: testDriver({}, prefix), peers: [], prefix };
      this.all.push(slot);
    }
    const taken = slot;
    let peersHanded = 0;
    return {
      driver: taken.driver,
      peer: async () => {
        if (peersHanded === taken.peers.length) taken.peers.push(testDriver({}, taken.prefix));
        return taken.peers[peersHanded++]!;
      },
      release: async () => {
        await taken.driver.reset();
        this.free.push(taken);
      },
    };
  }

  async closeAll(): Promise<void> {
    for (const slot of this.all) {
      await Promise.all(slot.peers.map((p) => p.close()));
      await dispose(slot.driver);
    }
  }
}
