/** The worker and client contracts over the in-process engine on Redis (one key prefix per run). */
import { describe } from 'vitest';
import { runClientContract, runWorkerContract } from '../src/testing/index.js';
import { redisReachable, redisSubject, REDIS_URL } from './support/services.js';

if (await redisReachable()) {
  runWorkerContract({ name: 'redis', create: redisSubject });
  runClientContract({ name: 'redis', create: redisSubject });
} else {
  describe.skip(`worker and client contracts: redis (unreachable at ${REDIS_URL}; fails under CI=true)`, () => {});
}
