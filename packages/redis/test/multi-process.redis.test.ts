/**
 * Many processes, one Redis: two engine processes working one queue never get the same job, the promoter
 * runs under a lease, and every transition's event reaches a third process over pub/sub.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine, type OjsEvent } from '@ojskit/core';
import type { RedisDriver } from '../src/index.js';
import { dispose, REDIS_URL, redisAvailable, testDriver, uniquePrefix } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/worker-loop.ts', import.meta.url));
let driver: RedisDriver | undefined;
afterEach(async () => {
  if (driver) await dispose(driver);
});

interface WorkerProcess {
  ready: Promise<void>;
  result: Promise<{ name: string; instance: string; ids: string[] }>;
}

function startWorker(prefix: string, queue: string, name: string, total: number): WorkerProcess {
  const child = spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', FIXTURE, REDIS_URL, prefix, queue, name, String(total)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  let last = '';
  lines.on('line', (line) => (line === 'ready' ? onReady() : (last = line)));
  const result = new Promise<{ name: string; instance: string; ids: string[] }>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(last)) : reject(new Error(`${name} exited with ${code}`))));
  });
  return { ready, result };
}

describe.skipIf(!redisAvailable)('two engine processes on one Redis', () => {
  it('never hand one job to two workers, promote each scheduled job once, and publish every transition to other processes', async () => {
    const prefix = uniquePrefix('mp');
    driver = testDriver({}, prefix);
    const observer = new Engine({ driver });
    const events: OjsEvent[] = [];
    observer.subscribe({ queues: ['shared'] }, (e) => events.push(e));
    await driver.events.ready();

    const ready = 1_000;
    const scheduled = 200;
    // both workers are up and polling before any job exists, so both take part
    const workers = [startWorker(prefix, 'shared', 'alpha', ready + scheduled), startWorker(prefix, 'shared', 'beta', ready + scheduled)];
    await Promise.all(workers.map((w) => w.ready));
    // The scheduled jobs go in first, due 2.5 s after the call that stores them: behind the ready jobs' inserts
    // (and the workers' load) a loaded machine once took longer than the delay, and a job already due when
    // stored is stored available, never promoted. The promotions are checked against the jobs the store
    // answered `scheduled` for, so an insert slower still cannot fail the count.
    const at = new Date(Date.now() + 2_500).toISOString();
    const { jobs: stored } = await observer.enqueueBatch({
      jobs: Array.from({ length: scheduled }, (_, k) => ({ type: 'test.noop', args: [k], options: { queue: 'shared' }, scheduled_at: at })),
    });
    const storedScheduled = stored.filter((j) => j.state === 'scheduled').map((j) => j.id);
    expect(storedScheduled.length).toBeGreaterThan(0);
    for (let i = 0; i < ready; i += 250) {
      await observer.enqueueBatch({ jobs: Array.from({ length: 250 }, (_, k) => ({ type: 'test.noop', args: [i + k], options: { queue: 'shared' } })) });
    }

    const [a, b] = await Promise.all([workers[0]!.result, workers[1]!.result]);
    const all = [...a.ids, ...b.ids];
    expect(all).toHaveLength(ready + scheduled);
    expect(new Set(all).size).toBe(ready + scheduled);
    expect(a.ids.length).toBeGreaterThan(0);
    expect(b.ids.length).toBeGreaterThan(0);
    expect((await driver.jobCounts({ queue: 'shared' })).completed).toBe(ready + scheduled);

    // Every transition made in the worker processes reaches this process: wait for the last ones to arrive
    // (a fixed pause was too short on a loaded machine), then check that no more than one of each came.
    const count = (pred: (e: OjsEvent) => boolean) => events.filter(pred).length;
    await vi.waitFor(() => expect(count((e) => e.type === 'job.completed')).toBe(ready + scheduled), { timeout: 20_000, interval: 50 });
    expect(count((e) => e.type === 'job.started')).toBe(ready + scheduled);
    const promotedIds = events.filter((e) => e.type === 'job.enqueued' && e.data.promoted === true).map((e) => e.data.job_id);
    expect(promotedIds).toHaveLength(storedScheduled.length);
    expect(new Set(promotedIds)).toEqual(new Set(storedScheduled));
    await observer.stop();
  }, 90_000);
});
