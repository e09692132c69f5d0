/** Enqueue options: from the SDK's camelCase to the protocol's enqueue request. */
import { retryPolicyToWire, uniquePolicyToWire, type RetryPolicyInput, type UniquePolicyInput } from './policies.js';
import { checkEnqueueOptionKeys } from './known-keys.js';
import { relativeToWire, timeToWire, type DurationInput, type TimeInput } from './time.js';

/** Options of one enqueue. Everything is optional; the server applies the protocol's defaults. */
export interface EnqueueOptions {
  /** Client-chosen id (a lowercase UUIDv7); the server makes one when absent. */
  id?: string;
  /** Target queue (default `default`). */
  queue?: string;
  /** −100..100, higher is fetched first (default 0). */
  priority?: number;
  /** Run no earlier than this long from now (ms or ISO 8601 duration), measured by the server's clock. */
  delay?: DurationInput;
  /** Run no earlier than this time. Exclusive with `delay`. */
  scheduledAt?: TimeInput;
  /** Discard the job unexecuted if it has not started by this time. */
  expiresAt?: TimeInput;
  /** Discard the job unexecuted if it has not started within this long (ms or ISO 8601 duration). */
  expiresIn?: DurationInput;
  retry?: RetryPolicyInput;
  unique?: UniquePolicyInput;
  /** Free-form metadata, kept verbatim. */
  meta?: Record<string, unknown>;
  tags?: string[];
  /** Execution limit per attempt (ms); the worker aborts the handler and the server fails the attempt after it. */
  timeoutMs?: number;
  /** Reservation length after a claim (ms). Workers usually set their own on fetch. */
  visibilityTimeoutMs?: number;
  /** Stage the job as `pending`; it runs only after `client.activate(id)`. */
  pending?: boolean;
  /** URI of an args schema. */
  schema?: string;
  /** Extra top-level envelope attributes (extensions), sent and echoed verbatim. */
  attributes?: Record<string, unknown>;
  /**
   * Claim limits: at most one claim of such jobs from the queue per `1000 / maxPerSecond` ms; at most
   * `concurrency` jobs sharing `key` (default: the queue) active at once. Held jobs wait `available`.
   */
  rateLimit?: RateLimitInput;
}

/** A job's rate limit (`options.rate_limit`, spec/rate-limits.md). */
export interface RateLimitInput {
  maxPerSecond?: number;
  concurrency?: number;
  key?: string;
}

/**
 * The wire form of the `options` object of an enqueue request (also used by cron templates and workflow items).
 * Throws a TypeError on a key `EnqueueOptions` does not define, naming the accepted keys and the nearest.
 */
export function enqueueOptionsToWire(options: EnqueueOptions): Record<string, unknown> {
  checkEnqueueOptionKeys(options);
  if (options.delay !== undefined && options.scheduledAt !== undefined) {
    throw new TypeError('Give either `delay` or `scheduledAt`, not both.');
  }
  if (options.expiresIn !== undefined && options.expiresAt !== undefined) {
    throw new TypeError('Give either `expiresIn` or `expiresAt`, not both.');
  }
  const wire: Record<string, unknown> = {};
  if (options.queue !== undefined) wire.queue = options.queue;
  if (options.priority !== undefined) wire.priority = options.priority;
  if (options.delay !== undefined) wire.scheduled_at = relativeToWire(options.delay);
  if (options.scheduledAt !== undefined) wire.scheduled_at = timeToWire(options.scheduledAt);
  if (options.expiresIn !== undefined) wire.expires_at = relativeToWire(options.expiresIn);
  if (options.expiresAt !== undefined) wire.expires_at = timeToWire(options.expiresAt);
  if (options.retry !== undefined) wire.retry = retryPolicyToWire(options.retry);
  if (options.unique !== undefined) wire.unique = uniquePolicyToWire(options.unique);
  if (options.tags !== undefined) wire.tags = options.tags;
  if (options.timeoutMs !== undefined) wire.timeout_ms = options.timeoutMs;
  if (options.visibilityTimeoutMs !== undefined) wire.visibility_timeout_ms = options.visibilityTimeoutMs;
  if (options.pending !== undefined) wire.pending = options.pending;
  if (options.rateLimit !== undefined) {
    const { maxPerSecond, concurrency, key } = options.rateLimit;
    wire.rate_limit = {
      ...(maxPerSecond !== undefined ? { max_per_second: maxPerSecond } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(key !== undefined ? { key } : {}),
    };
  }
  return wire;
}

/** A full enqueue request: `{type, args, meta?, id?, schema?, options?, …attributes}`. */
export function enqueueRequestToWire(type: string, args: readonly unknown[], options: EnqueueOptions = {}): Record<string, unknown> {
  const request: Record<string, unknown> = { ...options.attributes, type, args };
  if (options.id !== undefined) request.id = options.id;
  if (options.meta !== undefined) request.meta = options.meta;
  if (options.schema !== undefined) request.schema = options.schema;
  const wireOptions = enqueueOptionsToWire(options);
  if (Object.keys(wireOptions).length > 0) request.options = wireOptions;
  return request;
}
