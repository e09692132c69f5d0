/** The shared contract suite against the memory driver. */
import { Engine } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract } from '../src/index.js';
import { MemoryDriver } from '@ojskit/memory';

runBackendContract({
  name: 'memory',
  create: async () => {
    const clock = new ManualClock();
    const driver = new MemoryDriver();
    const engine = new Engine({ driver, clock });
    return { api: engine, clock, driver, maintenance: () => engine.runMaintenance(), close: () => engine.close() };
  },
});
