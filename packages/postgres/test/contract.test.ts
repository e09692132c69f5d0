/**
 * The shared backend contract suite against PostgreSQL. Each subject runs in a schema of its own (recycled
 * between subjects after being emptied, see support/schema-pool.ts); every schema is dropped afterwards.
 */
import { afterAll, describe } from 'vitest';
import { Engine } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { runBackendContract } from '@ojskit/contract';
import { PostgresDriver } from '../src/postgres-driver.js';
import { HAVE_PG } from './support/database.js';
import { SchemaPool } from './support/schema-pool.js';

/**
 * Model sequences in `pnpm test`: each step is a round trip and every clock advance a maintenance pass, so
 * the contract's default 1000 took about five minutes of a CI run. A seeded claim bug (expired jobs handed
 * out, in the memory driver) failed 10 of 12 runs of 250 sequences and 3 of 3 of 1000; each run draws fresh
 * seeds. `pnpm test:model` runs the long form (1000, or more) on every backend.
 */
const CI_MODEL_RUNS = 250;

/** Why the cases that need calls to run in the order they are made do not apply here. */
const NOT_ORDERED =
  "calls run on pooled connections and an insert is visible only once committed, so the driver does not declare capabilities.orderedCalls (a waiting FETCH is woken by the insert's event instead)";

if (HAVE_PG) {
  const schemas = new SchemaPool();
  afterAll(() => schemas.dropAll());

  runBackendContract({
    name: 'postgres',
    modelRuns: CI_MODEL_RUNS,
    create: async () => {
      const clock = new ManualClock();
      const schema = await schemas.acquire();
      const driver = new PostgresDriver({ pool: schemas.pool, schema });
      await driver.events?.listen();
      const engine = new Engine({ driver, clock });
      return {
        api: engine,
        clock,
        driver,
        maintenance: () => engine.runMaintenance(),
        close: async () => {
          await engine.close();
          await schemas.release(schema);
        },
      };
    },
    skip: {
      'concurrency.ordered-calls': NOT_ORDERED,
      'fetch.long-poll-claims-behind-insert': NOT_ORDERED,
      'fetch.claims-behind-insert-during-first-claim': NOT_ORDERED,
      'fetch.behind-claim-surplus-requeued': NOT_ORDERED,
    },
  });
} else {
  describe.skip('OJS backend contract: postgres (PostgreSQL unreachable; fails under CI=true)', () => {});
}
