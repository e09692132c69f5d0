/**
 * The SDK's worker and client contracts through the HTTP transport against a gateway over one store (one test
 * file per store, so the stores' runs, mostly waits on real timers, go to different vitest workers).
 */
import { Engine } from '@ojskit/core';
import { http } from '@ojskit/client';
import { runClientContract, runWorkerContract, WORKER_CONTRACT_SERVICES, type WorkerContractSubject } from '@ojskit/contract';
import { createGateway, startGateway } from '../../src/index.js';
import type { TestBackend } from './backends.js';

function subject(backend: TestBackend): () => Promise<WorkerContractSubject> {
  return async () => {
    const store = await backend.open();
    const engine = new Engine({ driver: store.driver, services: WORKER_CONTRACT_SERVICES, onError: () => undefined }).start();
    const running = await startGateway(createGateway({ engine, logger: false }), { port: 0, host: '127.0.0.1' });
    const api = http(running.url);
    return {
      api,
      ...(store.dispatchLog ? { dispatchLog: store.dispatchLog } : {}),
      close: async () => {
        await api.close();
        await running.shutdown();
        // Stop the services first: the store (and a reused Postgres schema) must be quiet when it is disposed.
        await engine.stop();
        await store.dispose();
      },
    };
  };
}

/** Registers the worker and client contracts for `backend`, one fresh store and gateway per case. */
export function runSdkContractsOverHttp(backend: TestBackend): void {
  const name = `http (gateway over ${backend.name})`;
  runWorkerContract({ name, create: subject(backend) });
  runClientContract({ name, create: subject(backend), ...(backend.clientContractSkips ? { skip: backend.clientContractSkips } : {}) });
}
