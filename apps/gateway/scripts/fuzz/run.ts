/**
 * The long fuzz run (issue 25): OJSKIT_FUZZ_RUNS (default 20 000) generated requests per backend against a
 * gateway over memory, Redis and PostgreSQL (each on a store of its own, deleted afterwards), every answer
 * checked by scripts/fuzz/model.ts. Prints, per backend, the requests sent, answers by status class and
 * every violation (first 20), and exits 1 if any backend had one.
 *
 * Run: pnpm --filter @ojskit/gateway fuzz      (REDIS_URL, DATABASE_URL, OJSKIT_FUZZ_SEED, OJSKIT_FUZZ_BACKENDS)
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ManualClock } from '@ojskit/core/testing';
import { MemoryDriver } from '@ojskit/memory';
import { migrate, PostgresDriver, SESSION_SETTINGS } from '@ojskit/postgres';
import { createRedisDriver } from '@ojskit/redis';
import { createGateway } from '../../src/index.js';
import { checkRequest, newCounts, requestArbitrary, seedSentinels, type FuzzCounts } from './model.js';

const RUNS = Number(process.env['OJSKIT_FUZZ_RUNS'] ?? 20_000);
const SEED = Number(process.env['OJSKIT_FUZZ_SEED'] ?? Date.now() % 2 ** 31);
const BACKENDS = (process.env['OJSKIT_FUZZ_BACKENDS'] ?? 'memory,redis,postgres').split(',');
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Requests drawn per sample: fast-check samples are generated in batches to bound memory. */
const CHUNK = 1_000;

const unique = (): string => randomBytes(5).toString('hex');

/** A fresh store of `name` and how to delete it. */
async function openStore(name: string): Promise<{ driver: Driver; dispose(): Promise<void> }> {
  if (name === 'memory') {
    const driver = new MemoryDriver();
    return { driver, dispose: () => driver.close() };
  }
  if (name === 'redis') {
    const driver = createRedisDriver(REDIS_URL, { prefix: `ojsfuzz:${unique()}`, checkMemoryPolicy: false });
    await driver.events.ready();
    return {
      driver,
      dispose: async () => {
        await driver.reset();
        await driver.close();
      },
    };
  }
  const schema = `ojs_fuzz_${unique()}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4, options: SESSION_SETTINGS });
  await migrate({ pool, schema });
  const driver = new PostgresDriver({ pool, schema });
  await driver.events?.listen();
  return {
    driver,
    dispose: async () => {
      await driver.close().catch(() => undefined);
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

async function fuzzBackend(name: string): Promise<FuzzCounts & { seconds: number; alive: boolean }> {
  const store = await openStore(name);
  const engine = new Engine({ driver: store.driver, clock: new ManualClock(), onError: () => undefined });
  const gateway = createGateway({ engine, driver: store.driver, logger: false });
  const counts = newCounts();
  const started = performance.now();
  let alive: boolean;
  try {
    const queue = `fuzz-${unique()}`;
    const sentinels = await seedSentinels(engine, queue);
    const pools = { jobIds: [...sentinels, '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f'], queues: [queue, `fuzz-other-${unique()}`, 'default'] };
    const arbitrary = requestArbitrary(pools);
    for (let done = 0; done < RUNS; done += CHUNK) {
      const requests = fc.sample(arbitrary, { numRuns: Math.min(CHUNK, RUNS - done), seed: SEED + done });
      for (const request of requests) {
        await checkRequest(
          (r) => Promise.resolve(gateway.request(r.path, { method: r.method, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) })),
          request,
          { engine, driver: store.driver, sentinels },
          counts,
        );
      }
      process.stderr.write(`  ${name}: ${done + requests.length} requests, ${counts.violations.length} violations\n`);
    }
    alive = (await gateway.request('/ojs/manifest')).status === 200 && (await gateway.request('/ojs/v1/health')).status === 200;
  } finally {
    await gateway.close();
    await engine.stop();
    await store.dispose();
  }
  return { ...counts, seconds: (performance.now() - started) / 1000, alive };
}

let failed = false;
console.log(`fuzz: ${RUNS} requests per backend, seed ${SEED}`);
for (const name of BACKENDS) {
  const result = await fuzzBackend(name);
  const classes = Object.entries(result.byStatus)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  console.log(
    `${name.padEnd(9)} ${result.requests} requests in ${result.seconds.toFixed(1)} s (${classes}); violations ${result.violations.length}; gateway answering after: ${result.alive ? 'yes' : 'NO'}`,
  );
  for (const violation of result.violations.slice(0, 20)) console.log(`    ${violation}`);
  if (result.violations.length > 0 || !result.alive) failed = true;
}
process.exit(failed ? 1 : 0);
