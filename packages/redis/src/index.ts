/** @ojskit/redis: the ojskit Driver over Redis (ioredis), every primitive one atomic Lua script. */
import { RedisDriver } from './redis-driver.js';
import type { RedisDriverOptions } from './options.js';

export { RedisDriver } from './redis-driver.js';
export { RedisEventTransport, DEFAULT_EVENT_STREAM_MAX_LEN, type RedisEventTransportOptions } from './event-transport.js';
export type { RedisDriverOptions, DriverLogger } from './options.js';
export { readMemoryPolicy, memoryPolicyWarning, type MemoryPolicyReport } from './memory-policy.js';
export { SCRIPT_NAMES, type ScriptName } from './script-source.js';

/**
 * Builds a driver from a `redis://` URL; a `prefix` query parameter sets the key prefix (the gateway's
 * `--backend redis://host:6379?prefix=myapp`).
 * @example const driver = createRedisDriver('redis://127.0.0.1:6379?prefix=ojs');
 */
export function createRedisDriver(url: string, options: Omit<RedisDriverOptions, 'url' | 'redis'> = {}): RedisDriver {
  const parsed = new URL(url);
  const prefix = parsed.searchParams.get('prefix') ?? options.prefix;
  parsed.searchParams.delete('prefix');
  return new RedisDriver({ ...options, url: parsed.toString(), ...(prefix ? { prefix } : {}) });
}

/**
 * The gateway's adapter convention (`--backend redis://…`): `createRedisDriver`, connected. An unreachable
 * server rejects with one clear error (and the gateway exits), as a missing PostgreSQL database does.
 */
export const createDriverFromUrl = (url: string): Promise<RedisDriver> => createRedisDriver(url).connect();
