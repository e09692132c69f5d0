/** Options of `RedisDriver`, validated at construction. */
import type { Redis, RedisOptions } from 'ioredis';
import { z } from 'zod';
import { DEFAULT_EVENT_PUBLISH_DELAY_MS } from '@ojskit/core/driver';

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
  /**
   * How long (ms) events wait to be published to other processes, so that the events of that time go out in
   * one PUBLISH instead of a write each (default 2; 0 publishes at the end of the microtask run). Listeners in
   * this process get events at once either way.
   */
  eventPublishDelayMs?: number;
  /**
   * Publish events even while no other process subscribes to them (default false: a PUBLISH that reached only
   * this process's own subscriber stops publishing until another process says hello). Set it on Redis
   * Cluster, where a PUBLISH counts only the subscribers of its own node.
   */
  publishEventsWhenAlone?: boolean;
  logger?: DriverLogger;
}

// Glob characters and braces would break SCAN patterns and hash tags.
const PREFIX = /^[A-Za-z0-9_.:-]+$/;

const optionsSchema = z.object({
  url: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  prefix: z.string().regex(PREFIX, 'letters, digits and _ . : - only').max(128).optional(),
  checkMemoryPolicy: z.boolean().optional(),
  eventPublishDelayMs: z.number().int().min(0).max(60_000).optional(),
  publishEventsWhenAlone: z.boolean().optional(),
});

/** Validates the plain-data options (connections and loggers are passed through). */
export function parseOptions(options: RedisDriverOptions): {
  url: string;
  prefix: string;
  checkMemoryPolicy: boolean;
  eventPublishDelayMs: number;
  publishEventsWhenAlone: boolean;
} {
  const parsed = optionsSchema.parse({
    url: options.url,
    prefix: options.prefix,
    checkMemoryPolicy: options.checkMemoryPolicy,
    eventPublishDelayMs: options.eventPublishDelayMs,
    publishEventsWhenAlone: options.publishEventsWhenAlone,
  });
  return {
    url: parsed.url ?? 'redis://127.0.0.1:6379',
    prefix: parsed.prefix ?? 'ojs',
    checkMemoryPolicy: parsed.checkMemoryPolicy ?? true,
    eventPublishDelayMs: parsed.eventPublishDelayMs ?? DEFAULT_EVENT_PUBLISH_DELAY_MS,
    publishEventsWhenAlone: parsed.publishEventsWhenAlone ?? false,
  };
}
