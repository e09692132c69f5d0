/** Test support: the Redis URL, per-test key prefixes, and the CI rule (unreachable Redis fails under CI=true). */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisDriver, type RedisDriverOptions } from '../src/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other test (of this package or another) uses. */
export function uniquePrefix(label = 't'): string {
  return `ojstest:${label}:${randomUUID().slice(0, 8)}`;
}

async function reachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * True when tests should run. Without Redis they are skipped on a laptop, but under CI=true the absence is
 * an error: a skipped integration test must never pass for a green run.
 */
export const redisAvailable: boolean = await (async () => {
  const ok = await reachable();
  if (!ok && process.env.CI === 'true') throw new Error(`Redis is not reachable at ${REDIS_URL} (CI=true requires it)`);
  if (!ok) console.warn(`[@ojskit/redis tests] Redis unreachable at ${REDIS_URL}: integration tests skipped`);
  return ok;
})();

/** A driver on a fresh prefix; `dispose()` deletes its keys and closes it. */
export function testDriver(options: Omit<RedisDriverOptions, 'url' | 'prefix'> = {}, prefix = uniquePrefix()): RedisDriver {
  return new RedisDriver({ url: REDIS_URL, prefix, checkMemoryPolicy: false, ...options });
}

export async function dispose(driver: RedisDriver): Promise<void> {
  await driver.reset();
  await driver.close();
}
