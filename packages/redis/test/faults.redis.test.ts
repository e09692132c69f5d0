/**
 * Faults: a worker killed mid-job, dropped connections, a Redis server killed and restarted, and the
 * start-up eviction-policy check. Each runs against a private redis-server (see private-redis.ts).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine, OjsError } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { RedisDriver } from '../src/index.js';
import { storedJob, T0, iso } from './jobs.js';
import { PrivateRedis, redisServerAvailable } from './private-redis.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/claim-and-die.ts', import.meta.url));
const quiet = { warn: () => {}, error: () => {} };

let server: PrivateRedis | undefined;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await server?.stop();
  server = undefined;
});

function driverOn(url: string, options: Partial<ConstructorParameters<typeof RedisDriver>[0]> = {}): RedisDriver {
  const d = new RedisDriver({ url, prefix: 'faults', checkMemoryPolicy: false, logger: quiet, ...options });
  closers.push(() => d.close());
  return d;
}

async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!redisServerAvailable)('faults (private redis-server)', () => {
  it("gives a killed worker's job back after its visibility deadline, attempt counted", async () => {
    server = await PrivateRedis.start();
    const driver = driverOn(server.url);
    const clock = new ManualClock(Date.now());
    const engine = new Engine({ driver, clock });
    closers.push(() => engine.stop());
    const { job } = await engine.enqueue({ type: 'test.panic', args: [], options: { queue: 'crash' } });

    const child = spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', FIXTURE, server.url, 'faults', 'crash', '1000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    expect(JSON.parse(line)).toEqual({ id: job.id, attempt: 1 });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    expect((await engine.getJob(job.id)).job.state).toBe('active');
    // the worker claimed on the wall clock (visibility 1 s); move past that deadline
    clock.set(Date.now() + 1_500);
    await engine.runMaintenance();
    const back = (await engine.getJob(job.id)).job;
    expect(back).toMatchObject({ state: 'available', attempt: 1 });
    expect(back.errors?.at(-1)).toMatchObject({ attempt: 1 });
    expect(JSON.stringify(back.errors)).toContain('visibility');
    const again = await engine.fetch({ queues: ['crash'], worker_id: 'survivor' });
    expect(again.jobs[0]).toMatchObject({ id: job.id, attempt: 2, worker_id: 'survivor' });
  });

  it('fails commands on a dropped connection with backend_unavailable, reconnects, and loses no acknowledged write', async () => {
    server = await PrivateRedis.start();
    const driver = driverOn(server.url);
    const admin = driverOn(server.url).redis;
    const acked: string[] = [];
    const failed: OjsError[] = [];
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const job = storedJob({ queue: 'drop' });
        try {
          const r = await driver.jobInsert({ jobs: [job], now: T0, nowIso: iso(T0) });
          if (r.ok) acked.push(job.job.id);
        } catch (error) {
          failed.push(error as OjsError);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    })();
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 60));
      await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    }
    // Writes keep going after the last drop until enough were acknowledged (a loaded machine makes each
    // round trip slow; the deadline only bounds a driver that never recovers).
    const deadline = Date.now() + 10_000;
    while (acked.length <= 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await writer;
    expect(failed.length).toBeGreaterThan(0);
    for (const error of failed) expect(error).toMatchObject({ code: 'backend_unavailable', retryable: true });
    expect(acked.length).toBeGreaterThan(20);
    for (const id of acked) expect(await driver.jobGet(id), id).not.toBeNull();
    // still usable without being recreated
    expect((await driver.jobCounts({ queue: 'drop' })).available).toBeGreaterThanOrEqual(acked.length);
  });

  it('survives a Redis crash: errors while it is down, reconnects by itself, keeps every acknowledged write (AOF fsync always)', async () => {
    server = await PrivateRedis.start(['--appendonly', 'yes', '--appendfsync', 'always']);
    const driver = driverOn(server.url, { connection: { maxRetriesPerRequest: 1 } });
    const acked: string[] = [];
    const errors: OjsError[] = [];
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const job = storedJob({ queue: 'crash' });
        try {
          const r = await driver.jobInsert({ jobs: [job], now: T0, nowIso: iso(T0) });
          if (r.ok) acked.push(job.job.id);
        } catch (error) {
          errors.push(error as OjsError);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })();
    await until(() => acked.length > 50);
    await server.kill();
    const ackedBeforeCrash = acked.length;
    await until(() => errors.length > 0);
    await server.launch();
    await until(() => acked.length > ackedBeforeCrash + 50);
    stop = true;
    await writer;
    expect(errors.every((e) => e.code === 'backend_unavailable')).toBe(true);
    const missing: string[] = [];
    for (const id of acked) if ((await driver.jobGet(id)) === null) missing.push(id);
    expect(missing).toEqual([]);
  });

  it('warns loudly at start-up when maxmemory-policy is not noeviction', async () => {
    server = await PrivateRedis.start(['--maxmemory-policy', 'allkeys-lru']);
    const warn = vi.fn();
    const d = driverOn(server.url, { checkMemoryPolicy: true, logger: { warn } });
    expect(await d.startup).toEqual({ policy: 'allkeys-lru', ok: false });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/maxmemory-policy is 'allkeys-lru'.*noeviction/s);

    await d.redis.config('SET', 'maxmemory-policy', 'noeviction');
    const ok = vi.fn();
    const d2 = driverOn(server.url, { checkMemoryPolicy: true, logger: { warn: ok } });
    expect(await d2.startup).toEqual({ policy: 'noeviction', ok: true });
    expect(ok).not.toHaveBeenCalled();
  });
});
