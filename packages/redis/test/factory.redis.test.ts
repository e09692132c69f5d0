/** `createRedisDriver(url)` / `createDriverFromUrl(url)`: what the gateway's `--backend redis://…` calls. */
import { describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { createRedisDriver } from '../src/index.js';
import { REDIS_URL, redisAvailable, uniquePrefix } from './support.js';

describe('createRedisDriver', () => {
  it('reads the key prefix from the URL and rejects a bad one', async () => {
    const prefix = uniquePrefix('url').replaceAll(':', '.');
    const driver = createRedisDriver(`${REDIS_URL}?prefix=${prefix}`, { checkMemoryPolicy: false });
    expect(driver.prefix).toBe(prefix);
    const plain = createRedisDriver(REDIS_URL);
    expect(plain.prefix).toBe('ojs');
    plain.redis.disconnect();
    expect(() => createRedisDriver(`${REDIS_URL}?prefix=a*b`)).toThrow(/prefix/);
    expect(() => createRedisDriver('http://localhost')).toThrow(/redis:\/\//);
    driver.redis.disconnect();
  });

  it.skipIf(!redisAvailable)('runs an engine from a URL alone', async () => {
    const driver = createRedisDriver(`${REDIS_URL}?prefix=${uniquePrefix('url')}`, { checkMemoryPolicy: false });
    const engine = new Engine({ driver });
    const { job } = await engine.enqueue({ type: 'test.echo', args: ['hi'] });
    expect((await engine.getJob(job.id)).job.args).toEqual(['hi']);
    await driver.reset();
    await engine.close();
  });
});
