/** Options of `RedisDriver`, validated at construction. */
import type { Redis, RedisOptions } from 'ioredis';
import { z } from 'zod';

/** Where the driver reports start-up warnings (default: `console`). */
export interface DriverLogger {
  warn(message: string): void;
  error?(message: string, error?: unknown): void;
}

export interface RedisDriverOptions {
  /** An ioredis connection to use (the caller keeps ownership: `close()` leaves it open). */
  redis?: Redis;
  /** A `redis://` / `rediss://` URL to connect to when no `redis` is given (default `redis://127.0.0.1:6379`). */
  url?: string;
  /** Extra ioredis options for connections the driver opens. */
  connection?: RedisOptions;
  /** Prefix of every key and of the event channel (default `ojs`). Isolates deployments and tests. */
  prefix?: string;
  /** Check `maxmemory-policy` at start-up and warn loudly unless it is `noeviction` (default true). */
  checkMemoryPolicy?: boolean;
  logger?: DriverLogger;
}

// Glob characters and braces would break SCAN patterns and hash tags.
const PREFIX = /^[A-Za-z0-9_.:-]+$/;

const optionsSchema = z.object({
  url: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  prefix: z.string().regex(PREFIX, 'letters, digits and _ . : - only').max(128).optional(),
  checkMemoryPolicy: z.boolean().optional(),
});

/** Validates the plain-data options (connections and loggers are passed through). */
export function parseOptions(options: RedisDriverOptions): { url: string; prefix: string; checkMemoryPolicy: boolean } {
  const parsed = optionsSchema.parse({
    url: options.url,
    prefix: options.prefix,
    checkMemoryPolicy: options.checkMemoryPolicy,
  });
  return {
    url: parsed.url ?? 'redis://127.0.0.1:6379',
    prefix: parsed.prefix ?? 'ojs',
    checkMemoryPolicy: parsed.checkMemoryPolicy ?? true,
  };
}
