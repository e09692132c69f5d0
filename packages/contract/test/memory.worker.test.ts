/** The worker contract over the in-process engine on the memory driver. */
import { MemoryDriver } from '@ojskit/memory';
import { inProcess } from '@ojskit/client';
import { runWorkerContract, WORKER_CONTRACT_SERVICES } from '../src/index.js';

runWorkerContract({
  name: 'memory',
  create: async () => {
    const engine = inProcess(new MemoryDriver(), { services: WORKER_CONTRACT_SERVICES });
    return { api: engine, close: () => engine.close() };
  },
});
