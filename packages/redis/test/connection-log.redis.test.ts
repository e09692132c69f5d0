/**
 * An unreachable Redis is reported as states, not as a flood: at start-up `createDriverFromUrl` (the gateway's
 * `--backend redis://…`) rejects with one clear error; later, one line when the connection is lost and one
 * when it is back, never a stack, however many reconnect attempts and failing commands happen in between.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { createDriverFromUrl, type RedisDriver } from '../src/index.js';
import { PrivateRedis, redisServerAvailable } from './private-redis.js';

let server: PrivateRedis | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A logger that records what the driver reports, with the arguments, so a stack passed along shows. */
function recorder() {
  const lines: Array<{ level: string; message: string; extra: unknown[] }> = [];
  return {
    lines,
    logger: {
      warn: (message: string, ...extra: unknown[]) => lines.push({ level: 'warn', message, extra }),
      error: (message: string, ...extra: unknown[]) => lines.push({ level: 'error', message, extra }),
    },
  };
}

describe.skipIf(!redisServerAvailable)('Redis connection state in the log', () => {
  it('start-up: an unreachable server rejects at once with one line naming it', async () => {
    server = await PrivateRedis.start();
    const url = server.url;
    await server.kill();
    const started = Date.now();
    await expect(createDriverFromUrl(url)).rejects.toThrow(
      new RegExp(
        `^Redis at 127\\.0\\.0\\.1:${server.port} is unreachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${server.port}\\)\\. Is redis-server running there, and is the URL right\\?$`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  // retry: in three CI runs on 2026-11-27 (a slow day, many steps at once) this case ran out its 30 s, while it
  // passes in 4 s alone and beside six busy loops; where it waits was not found.
  it('at run time: one line when lost, one when restored, no stack, while an engine keeps trying', { timeout: 30_000, retry: 1 }, async () => {
    server = await PrivateRedis.start();
    const { lines, logger } = recorder();
    const { RedisDriver } = await import('../src/index.js');
    const driver: RedisDriver = await new RedisDriver({ url: server.url, prefix: 'connlog', checkMemoryPolicy: false, logger }).connect();
    const engineErrors: unknown[] = [];
    const engine = new Engine({
      driver,
      services: { promoteMs: 20, rescueMs: 20, expireMs: 20, cronMs: 20, pruneMs: 20 },
      onError: (err) => engineErrors.push(err),
    }).start();
    await driver.events?.ready?.();
    try {
      await server.kill();
      // ~2 s of reconnect attempts, background passes and failing commands.
      const failing: Array<Promise<unknown>> = [];
      for (let i = 0; i < 8; i++) {
        failing.push(engine.enqueue({ type: 'a.b', args: [] }).catch(() => undefined));
        await new Promise((r) => setTimeout(r, 250));
      }
      await Promise.all(failing);
      expect(lines.map((l) => `${l.level} ${l.message}`)).toEqual([
        expect.stringMatching(
          new RegExp(`^error @ojskit/redis: connection to 127\\.0\\.0\\.1:${server.port} lost \\(.*\\); retrying quietly until it is back$`),
        ),
      ]);
      await server.launch();
      const until = Date.now() + 10_000;
      while (!lines.some((l) => l.message.includes('restored')) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(lines.map((l) => l.message)).toEqual([expect.stringContaining(' lost ('), `@ojskit/redis: connection to 127.0.0.1:${server.port} restored`]);
      expect(lines.every((l) => l.extra.length === 0)).toBe(true);
      // The engine's background services report the outage once, not once per pass.
      expect(engineErrors).toHaveLength(1);
      expect(engineErrors[0]).toMatchObject({ code: 'backend_unavailable' });
      expect(driver.connectionState).toBe('up');
    } finally {
      await engine.close();
    }
  });
});
