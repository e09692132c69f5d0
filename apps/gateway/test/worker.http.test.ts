/** The SDK's worker and client contracts through the HTTP transport against this gateway over memory. */
import { Engine } from '@ojskit/core';
import { http } from '@ojskit/client';
import { runClientContract, runWorkerContract, WORKER_CONTRACT_SERVICES, type WorkerContractSubject } from '@ojskit/client/testing';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway, startGateway } from '../src/index.js';

async function create(): Promise<WorkerContractSubject> {
  const engine = new Engine({ driver: new MemoryDriver(), services: WORKER_CONTRACT_SERVICES, onError: () => undefined }).start();
  const running = await startGateway(createGateway({ engine, logger: false }), { port: 0, host: '127.0.0.1' });
  const api = http(running.url);
  return {
    api,
    close: async () => {
      await api.close();
      await running.shutdown();
      await engine.close();
    },
  };
}

runWorkerContract({ name: 'http (gateway over memory)', create });
runClientContract({ name: 'http (gateway over memory)', create });
