/**
 * The short fuzz suite (issue 25): generated requests to every route, on every backend, each checked for
 * the properties of scripts/fuzz/model.ts (no 5xx but 503, always the OJS envelope, a refused request
 * changes no job, the gateway still answers). The long form is `pnpm --filter @ojskit/gateway fuzz`.
 * The seed is printed with any failure; OJSKIT_FUZZ_SEED replays it, OJSKIT_FUZZ_RUNS sets the count.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { checkRequest, newCounts, requestArbitrary, seedSentinels } from '../scripts/fuzz/model.js';
import { describeEachBackend } from './support/backends.js';
import { useHarness } from './support/harness.js';
import { queueName } from './support/flows.js';

const RUNS = Number(process.env['OJSKIT_FUZZ_RUNS'] ?? 150);
const SEED = Number(process.env['OJSKIT_FUZZ_SEED'] ?? Date.now() % 2 ** 31);

describeEachBackend('fuzz', (backend) => {
  const h = useHarness(backend);

  it(`${RUNS} generated requests: no 5xx, always the envelope, refusals change nothing, the gateway survives`, async () => {
    const queue = queueName('fuzz');
    const sentinels = await seedSentinels(h.engine, queue);
    const pools = { jobIds: [...sentinels, '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f'], queues: [queue, queueName('fuzz-other'), 'default'] };
    const counts = newCounts();
    const requests = fc.sample(requestArbitrary(pools), { numRuns: RUNS, seed: SEED });
    for (const request of requests) {
      await checkRequest(
        (r) => Promise.resolve(h.gateway.request(r.path, { method: r.method, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) })),
        request,
        { engine: h.engine, driver: h.driver, sentinels },
        counts,
      );
    }
    expect(counts.violations, `seed ${SEED}`).toEqual([]);
    expect(counts.requests).toBe(RUNS);
    for (const path of ['/ojs/manifest', '/ojs/v1/health']) expect((await h.call('GET', path)).status, path).toBe(200);
  }, 60_000);
});
