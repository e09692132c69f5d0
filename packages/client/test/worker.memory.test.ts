/** The worker contract over the in-process engine on the memory driver. */
import { MemoryDriver } from '@ojskit/memory';
import { inProcess } from '../src/index.js';
import { runWorkerContract, WORKER_CONTRACT_SERVICES } from '@ojskit/contract';

runWorkerContract({
  name: 'memory',
  create: async () => {
    const engine = inProcess(new MemoryDriver(), { services: WORKER_CONTRACT_SERVICES });
    return { api: engine, close: () => engine.close() };
  },
});
