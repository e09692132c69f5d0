/** The SDK's worker and client contracts over the in-process engine on PostgreSQL (a schema per subject). */
import { afterAll, describe } from 'vitest';
import { Engine } from '@ojskit/core';
import { runClientContract, runWorkerContract, WORKER_CONTRACT_SERVICES, type WorkerContractSubject } from '@ojskit/contract';
import { PostgresDriver } from '../src/postgres-driver.js';
import { HAVE_PG } from './support/database.js';
import { SchemaPool } from './support/schema-pool.js';

if (HAVE_PG) {
  const schemas = new SchemaPool();
  afterAll(() => schemas.dropAll());

  const create = async (): Promise<WorkerContractSubject> => {
    const schema = await schemas.acquire();
    const driver = new PostgresDriver({ pool: schemas.pool, schema });
    await driver.events?.listen();
    const engine = new Engine({ driver, services: WORKER_CONTRACT_SERVICES }).start();
    return {
      api: engine,
      close: async () => {
        await engine.close();
        await schemas.release(schema);
      },
    };
  };

  runWorkerContract({ name: 'postgres', create });
  runClientContract({ name: 'postgres', create });
} else {
  describe.skip('worker and client contracts: postgres (PostgreSQL unreachable; fails under CI=true)', () => {});
}
