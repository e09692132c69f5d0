/** The SDK's worker and client contracts over the in-process engine on Redis (one key prefix per run). */
import { describe } from 'vitest';
import { Engine } from '@ojskit/core';
import { runClientContract, runWorkerContract, WORKER_CONTRACT_SERVICES, type WorkerContractSubject } from '@ojskit/contract';
import { dispose, redisAvailable, testDriver } from './support.js';

async function create(): Promise<WorkerContractSubject> {
  const driver = testDriver({}, undefined);
  const engine = new Engine({ driver, services: WORKER_CONTRACT_SERVICES }).start();
  return {
    api: engine,
    close: async () => {
      await engine.stop();
      await dispose(driver);
    },
  };
}

if (redisAvailable) {
  runWorkerContract({ name: 'redis', create });
  runClientContract({ name: 'redis', create });
} else {
  describe.skip('worker and client contracts: redis (Redis unreachable; fails under CI=true)', () => {});
}
