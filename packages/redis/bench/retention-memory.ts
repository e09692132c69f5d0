/**
 * Memory stays bounded under steady load (issue 4, retention): 100 000 jobs flow through enqueue → worker →
 * completed in waves, with a short completed-job retention and the engine's pruner running; Redis
 * `used_memory` is printed before, after each wave, and once the last jobs have been pruned.
 *
 * Usage: pnpm bench:retention  (env: REDIS_URL, RETENTION_JOBS=100000, RETENTION_WAVE=10000)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Engine } from '@ojskit/core';
import { Client, Worker } from '@ojskit/client';
import { RedisDriver } from '../src/index.js';
import { table } from './measure.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOTAL = Number(process.env.RETENTION_JOBS ?? 100_000);
const WAVE = Number(process.env.RETENTION_WAVE ?? 10_000);
const RETENTION_MS = 2_000;

const admin = new Redis(url);
const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))?.[1] ?? 0);
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(2)} MB`;

const driver = new RedisDriver({ url, prefix: `ojsretention:${randomUUID().slice(0, 8)}`, checkMemoryPolicy: false });
const engine = new Engine({
  driver,
  retention: { completedMs: RETENTION_MS, cancelledMs: RETENTION_MS, discardedMs: RETENTION_MS },
  services: { pruneMs: 1_000 },
}).start();
const client = new Client(engine);
const worker = new Worker(engine, { queues: ['steady'], concurrency: 50, ackBatch: { maxSize: 100, maxDelayMs: 0 } });
let completed = 0;
worker.register('bench.noop', async () => undefined);
worker.on('completed', () => completed++);
worker.start();

const rows: Array<Array<string | number>> = [];
const baseline = await usedMemory();
rows.push(['before', 0, mb(baseline), '']);
const started = performance.now();
for (let sent = 0; sent < TOTAL; sent += WAVE) {
  const waveStart = performance.now();
  for (let i = 0; i < WAVE; i += 1_000) {
    await client.enqueueMany(Array.from({ length: 1_000 }, (_, k) => ({ type: 'bench.noop', args: [sent + i + k], options: { queue: 'steady' } })));
  }
  while (completed < sent + WAVE) await new Promise((r) => setTimeout(r, 20));
  const rate = WAVE / ((performance.now() - waveStart) / 1000);
  rows.push([`after wave ${sent / WAVE + 1}`, completed, mb(await usedMemory()), Math.round(rate)]);
}
const elapsed = (performance.now() - started) / 1000;
// let the pruner collect the last wave
await new Promise((r) => setTimeout(r, RETENTION_MS + 2_500));
const counts = await driver.jobCounts({ queue: 'steady' });
rows.push(['after final prune', completed, mb(await usedMemory()), '']);
console.log(`\n${TOTAL} jobs through Redis at ${url}, completed-job retention ${RETENTION_MS} ms, pruner every 1 s`);
console.log(table(['moment', 'jobs completed', 'Redis used_memory', 'jobs/s (enqueue + process)'], rows));
console.log(`\noverall ${Math.round(TOTAL / elapsed)} jobs/s; completed jobs still stored at the end: ${counts.completed}`);
await worker.close();
await driver.reset();
await engine.close();
await admin.quit();
process.exit(0);
