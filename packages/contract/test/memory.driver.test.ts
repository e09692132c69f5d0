/** The shared driver-level suite against the memory driver: a fresh store per case. */
import { runDriverContract } from '../src/index.js';
import { MemoryDriver } from '@ojskit/memory';

runDriverContract({
  name: 'memory',
  create: async () => {
    const driver = new MemoryDriver();
    return { driver, close: () => driver.close() };
  },
});
