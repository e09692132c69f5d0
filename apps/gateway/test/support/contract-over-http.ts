/** The backend contract suite through the HTTP transport, against a gateway on a real port over one store. */
import { runBackendContract } from '@ojskit/contract';
import { http } from '@ojskit/client';
import { startGateway } from '../../src/index.js';
import type { TestBackend } from './backends.js';
import { openHarness } from './harness.js';

const NO_DRIVER = 'HTTP transport exposes no driver';

/**
 * Model sequences over HTTP on a store. Each sequence step is an HTTP request plus a store round trip
 * (about 120 ms a sequence on Redis, against 55 ms on memory; 1 s on Kafka+PostgreSQL), so 1000 would add
 * minutes per store. Each store runs its own sample at engine level in its adapter's suite (250 on Redis and
 * PostgreSQL, 25 on Kafka); here 20 sample the combination with the transport: the four files' 50 each were
 * 178 s of a CI run's file time (2026-11-27), mostly CPU on two cores.
 */
const STORE_MODEL_RUNS = 20;

/**
 * Model sequences over HTTP on memory: the full 1000 took almost four minutes of a CI run (every step is
 * requests parsed, validated and encoded), 250 took 131 s (2026-11-27), and memory runs 1000 at engine level
 * in @ojskit/contract's own suite. Each run draws fresh seeds; `pnpm test:model` runs the long form (1000, or
 * more) here and on every backend; `OJSKIT_CONTRACT_MODEL_RUNS` sets any count.
 */
const MEMORY_MODEL_RUNS = 60;

/**
 * Registers the contract for `backend` (or `part` of it, for a suite split across files): one fresh store and
 * gateway per case, the engine reading a ManualClock, background services run in-process (`maintenance`) as
 * for every backend.
 */
export function runContractOverHttp(backend: TestBackend, part?: { index: number; of: number }): void {
  runBackendContract({
    name: `http (gateway over ${backend.name})${part ? ` part ${part.index} of ${part.of}` : ''}`,
    modelRuns: backend.name === 'memory' ? MEMORY_MODEL_RUNS : STORE_MODEL_RUNS,
    ...(part ? { part } : {}),
    create: async () => {
      const h = await openHarness(backend);
      const running = await startGateway(h.gateway, { port: 0, host: '127.0.0.1' });
      return {
        api: http(running.url),
        clock: h.clock,
        maintenance: () => h.engine.runMaintenance(),
        ...(h.dispatchLog ? { dispatchLog: h.dispatchLog } : {}),
        close: async () => {
          await running.shutdown();
          await h.close();
        },
      };
    },
    skip: {
      'concurrency.claim-race-driver': NO_DRIVER,
      'concurrency.driver-transition-race': NO_DRIVER,
      'concurrency.ordered-calls': NO_DRIVER,
      'fetch.long-poll-claims-behind-insert': NO_DRIVER,
      'fetch.claims-behind-insert-during-first-claim': NO_DRIVER,
      'fetch.behind-claim-surplus-requeued': NO_DRIVER,
      // The gateway side (a client hanging up ends the wait, claims nothing) is test/long-poll.test.ts.
      'fetch.long-poll-abort':
        'the HTTP transport holds a long-poll to its end: aborting the request could drop the answer of a claim made as the client hangs up',
      // args/meta preservation over HTTP is covered by test/edge-cases.test.ts (everything JSON can carry).
      'envelope.args-and-meta-preserved':
        'JSON.stringify writes -0 as 0, so a JavaScript HTTP client cannot send -0 and the case compares -0 after a JSON round trip',
      ...backend.contractSkips,
    },
  });
}
