/** Options of `RedisDriver`, validated at construction. */
import type { Redis, RedisOptions } from 'ioredis';
import { z } from 'zod';
import { DEFAULT_EVENT_PUBLISH_DELAY_MS } from '@ojskit/core/driver';
import { DEFAULT_EVENT_STREAM_MAX_LEN } from './event-transport.js';

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
  /** Prefix of every key, the event stream's included (default `ojs`). Isolates deployments and tests. */
  prefix?: string;
  /** Check `maxmemory-policy` at start-up and warn loudly unless it is `noeviction` (default true). */
  checkMemoryPolicy?: boolean;
  /**
   * How long (ms) events wait to be appended to the event stream, so that the events of that time go out in
   * one XADD instead of a write each (default 2; 0 appends at the end of the microtask run). Listeners in
   * this process get events at once either way.
   */
  eventPublishDelayMs?: number;
  /**
   * Entries the event stream `P:events` keeps, approximately (`XADD MAXLEN ~`; default 10 000). Each entry
   * holds one event or more (a run of alike job events), at most 16 KiB: the window `Last-Event-ID` can
   * resume from, and a bound on the stream's memory.
   */
  eventStreamMaxLen?: number;
  logger?: DriverLogger;
  /**
   * Admit core's dispatch-log rows (`DISPATCH_TRANSITIONS`) in the transition guard, and report
   * `capabilities.dispatchLog`: for a driver that is the state store of a dispatch log (`@ojskit/kafka`), which
   * makes those moves itself. Default false: the driver refuses them, as every plain backend must.
   */
  dispatchLog?: boolean;
  /**
   * Record each job's history (`x-job-history`, `jobHistory`): every script that changes a job's state appends
   * one line to the job's history list in the same call (default true). False writes none and reports
   * `capabilities.history: false`; the benchmarks compare the two.
   */
  history?: boolean;
}

// Glob characters and braces would break SCAN patterns and hash tags.
const PREFIX = /^[A-Za-z0-9_.:-]+$/;

const optionsSchema = z.object({
  url: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  prefix: z.string().regex(PREFIX, 'letters, digits and _ . : - only').max(128).optional(),
  checkMemoryPolicy: z.boolean().optional(),
  eventPublishDelayMs: z.number().int().min(0).max(60_000).optional(),
  eventStreamMaxLen: z.number().int().min(1).max(100_000_000).optional(),
});

/** Validates the plain-data options (connections and loggers are passed through). */
export function parseOptions(options: RedisDriverOptions): {
  url: string;
  prefix: string;
  checkMemoryPolicy: boolean;
  eventPublishDelayMs: number;
  eventStreamMaxLen: number;
} {
  const parsed = optionsSchema.parse({
    url: options.url,
    prefix: options.prefix,
    checkMemoryPolicy: options.checkMemoryPolicy,
    eventPublishDelayMs: options.eventPublishDelayMs,
    eventStreamMaxLen: options.eventStreamMaxLen,
  });
  return {
    url: parsed.url ?? 'redis://127.0.0.1:6379',
    prefix: parsed.prefix ?? 'ojs',
    checkMemoryPolicy: parsed.checkMemoryPolicy ?? true,
    eventPublishDelayMs: parsed.eventPublishDelayMs ?? DEFAULT_EVENT_PUBLISH_DELAY_MS,
    eventStreamMaxLen: parsed.eventStreamMaxLen ?? DEFAULT_EVENT_STREAM_MAX_LEN,
  };
}
