/** The client contract over the in-process engine on the memory driver. */
import { MemoryDriver } from '@ojskit/memory';
import { inProcess } from '@ojskit/client';
import { runClientContract, WORKER_CONTRACT_SERVICES } from '../src/index.js';

runClientContract({
  name: 'memory',
  create: async () => {
    const engine = inProcess(new MemoryDriver(), { services: WORKER_CONTRACT_SERVICES });
    return { api: engine, close: () => engine.close() };
  },
});
