/** The worker and client contracts over the in-process engine on PostgreSQL (one fresh schema per run). */
import { describe } from 'vitest';
import { runClientContract, runWorkerContract } from '../src/testing/index.js';
import { DATABASE_URL, postgresReachable, postgresSubject } from './support/services.js';

if (await postgresReachable()) {
  runWorkerContract({ name: 'postgres', create: postgresSubject });
  runClientContract({
    name: 'postgres',
    create: postgresSubject,
    skip: {
      'cron.lifecycle':
        "@ojskit/postgres bug: disabling a cron fails in cronUpsert ('cannot cast jsonb null to type numeric' for next_run_ms = null); reported to the driver's owner",
    },
  });
} else {
  describe.skip(`worker and client contracts: postgres (unreachable at ${DATABASE_URL}; fails under CI=true)`, () => {});
}
