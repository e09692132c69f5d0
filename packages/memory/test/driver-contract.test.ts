/** The shared driver-level suite against the memory driver: a fresh store per case. */
import { runDriverContract } from '@ojskit/contract';
import { MemoryDriver } from '../src/index.js';

runDriverContract({
  name: 'memory',
  create: async () => {
    const driver = new MemoryDriver();
    return { driver, close: () => driver.close() };
  },
});
