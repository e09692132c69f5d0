/**
 * The soak run (issue 25): SOAK_MS (default 10 minutes) of mixed load per backend through an in-process
 * gateway with its background services and short retention (finished jobs pruned after 5 s): producers
 * enqueue single and batched jobs (some scheduled, some cancelled), an HTTP worker runs them (one in ten
 * fails once), an SSE subscriber and a stats poller stay connected. Every SOAK_SAMPLE_MS it prints the
 * process heap and RSS and the jobs the store holds; at the end, whether both stayed bounded (the last
 * third's peak within 1.5× of the first third's, plus slack).
 *
 * Run: pnpm --filter @ojskit/gateway soak     (SOAK_BACKENDS=memory,redis,postgres, REDIS_URL, DATABASE_URL)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, Worker, http } from '@ojskit/client';
import type { Driver } from '@ojskit/core/driver';
import { MemoryDriver } from '@ojskit/memory';
import { migrate, PostgresDriver, SESSION_SETTINGS } from '@ojskit/postgres';
import { createRedisDriver } from '@ojskit/redis';
import { createGateway, startGateway } from '../../src/index.js';

const SOAK_MS = Number(process.env['SOAK_MS'] ?? 600_000);
const SAMPLE_MS = Number(process.env['SOAK_SAMPLE_MS'] ?? Math.max(5_000, SOAK_MS / 20));
const BACKENDS = (process.env['SOAK_BACKENDS'] ?? 'memory,redis,postgres').split(',');
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const RETENTION_MS = 5_000;

const unique = (): string => randomBytes(5).toString('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A store to soak, and what it holds besides jobs (Redis: its event stream's entries and bytes). */
async function openStore(name: string): Promise<{ driver: Driver; dispose(): Promise<void>; extra?(): Promise<string> }> {
  if (name === 'memory') return { driver: new MemoryDriver(), dispose: async () => undefined };
  if (name === 'redis') {
    const prefix = `ojssoak:${unique()}`;
    const driver = createRedisDriver(REDIS_URL, { prefix, checkMemoryPolicy: false });
    await driver.events.ready();
    const stream = `${prefix}:events`;
    return {
      driver,
      extra: async () => `event stream ${await driver.redis.xlen(stream)} entries ${Math.round(Number(await driver.redis.memory('USAGE', stream)) / 1024)} KB`,
      // The gateway closed the driver: a second one on the same prefix deletes the keys.
      dispose: async () => {
        const sweeper = createRedisDriver(REDIS_URL, { prefix, checkMemoryPolicy: false });
        await sweeper.reset();
        await sweeper.close();
      },
    };
  }
  const schema = `ojs_soak_${unique()}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6, options: SESSION_SETTINGS });
  // Finished jobs live in partitions by finish time, dropped whole once wholly past the retention: with the
  // default day-wide partitions a 5 s retention frees nothing within a soak, so the width matches it here.
  const finishedPartitions = { widthMs: RETENTION_MS };
  await migrate({ pool, schema, finishedPartitions });
  const driver = new PostgresDriver({ pool, schema, finishedPartitions });
  return {
    driver,
    extra: async () => {
      const { rows } = await pool.query<{ n: number; kb: number }>(
        `SELECT count(*)::int AS n, (pg_total_relation_size('"${schema}".event_log') / 1024)::int AS kb FROM "${schema}".event_log`,
      );
      return `event log ${rows[0]!.n} rows ${rows[0]!.kb} KB`;
    },
    dispose: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

interface Sample {
  at: number;
  heapMb: number;
  rssMb: number;
  storedJobs: number;
  processed: number;
}

async function soak(name: string): Promise<{ samples: Sample[]; bounded: boolean }> {
  const store = await openStore(name);
  const gateway = createGateway({
    backend: store.driver,
    logger: false,
    engineOptions: {
      services: { pruneMs: 1_000 },
      retention: { completedMs: RETENTION_MS, cancelledMs: RETENTION_MS, discardedMs: RETENTION_MS, deadLetterMs: RETENTION_MS },
    },
  });
  const server = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
  const api = http(server.url);
  const client = new Client(api);
  const queue = `soak-${unique()}`;
  let processed = 0;
  const failedOnce = new Set<string>();
  const worker = new Worker(api, { queues: [queue], concurrency: 16 });
  worker.register('soak.job', async (ctx) => {
    processed++;
    if (ctx.attempt === 1 && Math.random() < 0.1) {
      failedOnce.add(ctx.job.id);
      throw new Error('soak failure');
    }
    return { n: processed };
  });
  worker.start();
  const unsubscribe = api.subscribe({ queues: [queue] }, () => undefined);
  const end = Date.now() + SOAK_MS;
  let stop = false;
  const producers = Array.from({ length: 2 }, async (_, p) => {
    let i = 0;
    while (!stop) {
      i++;
      if (i % 10 === 0) {
        await client.enqueueMany(Array.from({ length: 50 }, (_, k) => ({ type: 'soak.job', args: [p, i, k], options: { queue } })));
      } else if (i % 7 === 0) {
        const job = await client.enqueue('soak.job', [p, i], { queue, scheduledAt: new Date(Date.now() + 60_000).toISOString() });
        await client.cancel(job.id).catch(() => undefined);
      } else {
        await client.enqueue('soak.job', [p, i], { queue, retry: { maxAttempts: 3, initialInterval: 100 } });
      }
      await sleep(5);
    }
  });
  const samples: Sample[] = [];
  while (Date.now() < end) {
    await sleep(Math.min(SAMPLE_MS, end - Date.now()));
    if (typeof global.gc === 'function') global.gc();
    const memory = process.memoryUsage();
    const { total } = await store.driver.jobList({ limit: 1, offset: 0 });
    const sample = {
      at: Math.round((SOAK_MS - (end - Date.now())) / 1000),
      heapMb: Math.round(memory.heapUsed / 2 ** 20),
      rssMb: Math.round(memory.rss / 2 ** 20),
      storedJobs: total,
      processed,
    };
    samples.push(sample);
    const extra = store.extra ? `; ${await store.extra()}` : '';
    console.error(
      `  ${name} t=${sample.at}s heap ${sample.heapMb} MB rss ${sample.rssMb} MB stored jobs ${sample.storedJobs} processed ${sample.processed}${extra}`,
    );
  }
  stop = true;
  await Promise.all(producers).catch(() => undefined);
  unsubscribe();
  await worker.close({ timeoutMs: 5_000 });
  await api.close();
  await server.shutdown();
  await store.dispose();
  const third = Math.max(1, Math.floor(samples.length / 3));
  const peak = (list: Sample[], key: 'heapMb' | 'storedJobs'): number => Math.max(...list.map((s) => s[key]));
  const first = samples.slice(0, third);
  const last = samples.slice(-third);
  const bounded = peak(last, 'heapMb') <= peak(first, 'heapMb') * 1.5 + 32 && peak(last, 'storedJobs') <= peak(first, 'storedJobs') * 1.5 + 500;
  return { samples, bounded };
}

console.log(`soak: ${SOAK_MS / 1000} s per backend, retention ${RETENTION_MS / 1000} s, sample every ${SAMPLE_MS / 1000} s`);
let ok = true;
for (const name of BACKENDS) {
  const { samples, bounded } = await soak(name);
  const last = samples.at(-1)!;
  console.log(
    `${name.padEnd(9)} processed ${last.processed}; heap MB ${samples.map((s) => s.heapMb).join(' ')}; stored jobs ${samples.map((s) => s.storedJobs).join(' ')}; bounded: ${bounded ? 'yes' : 'NO'}`,
  );
  ok &&= bounded;
}
process.exit(ok ? 0 : 1);
