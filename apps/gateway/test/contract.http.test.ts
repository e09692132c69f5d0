/**
 * The backend contract suite, run through the HTTP transport against a gateway on a real port, over the
 * memory driver with a ManualClock. Background services run in-process (`maintenance`), as for every backend.
 */
import { Engine, ManualClock } from '@ojskit/core';
import { runBackendContract } from '@ojskit/contract';
import { http } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway, startGateway } from '../src/index.js';

const NO_DRIVER = 'HTTP transport exposes no driver';

runBackendContract({
  name: 'http (gateway over memory)',
  create: async () => {
    const clock = new ManualClock();
    const engine = new Engine({ driver: new MemoryDriver(), clock, onError: () => undefined });
    const running = await startGateway(createGateway({ engine, logger: false }), { port: 0, host: '127.0.0.1' });
    return {
      api: http(running.url),
      clock,
      maintenance: () => engine.runMaintenance(),
      close: async () => {
        await running.shutdown();
        await engine.close();
      },
    };
  },
  skip: {
    'concurrency.claim-race-driver': NO_DRIVER,
    'concurrency.driver-transition-race': NO_DRIVER,
    // args/meta preservation over HTTP is covered by test/edge-cases.test.ts (everything JSON can carry).
    'envelope.args-and-meta-preserved':
      'JSON.stringify writes -0 as 0, so a JavaScript HTTP client cannot send -0 and the case compares -0 after a JSON round trip',
  },
});
