/**
 * The option names the SDK's camelCase objects accept. JavaScript callers (and casts) can pass any key, and a
 * mapper that copies only the keys it knows would drop a misspelt one: `{ maxAttempt: 7 }` would enqueue with
 * the default retries. So an unknown key throws, naming the accepted ones and the nearest (the server does
 * the same for the wire's `options`: spec/envelope.md E16).
 */
import { nearestName } from '@ojskit/core/formats';
import type { RetryPolicyInput, UniquePolicyInput } from './policies.js';
import type { EnqueueOptions, RateLimitInput } from './enqueue.js';

/** Every key of a type, checked by the compiler both ways. */
type KeyList<T> = { [K in keyof Required<T>]: true };

const ENQUEUE: KeyList<EnqueueOptions> = {
  id: true,
  queue: true,
  priority: true,
  delay: true,
  scheduledAt: true,
  expiresAt: true,
  expiresIn: true,
  retry: true,
  unique: true,
  meta: true,
  tags: true,
  timeoutMs: true,
  visibilityTimeoutMs: true,
  pending: true,
  schema: true,
  attributes: true,
  rateLimit: true,
};
const RATE_LIMIT: KeyList<RateLimitInput> = { maxPerSecond: true, concurrency: true, key: true };
const RETRY: KeyList<RetryPolicyInput> = {
  maxAttempts: true,
  initialInterval: true,
  backoffCoefficient: true,
  maxInterval: true,
  jitter: true,
  nonRetryableErrors: true,
  onExhaustion: true,
  backoffStrategy: true,
};
const UNIQUE: KeyList<UniquePolicyInput> = { keys: true, argsKeys: true, metaKeys: true, period: true, states: true, onConflict: true };

function check(value: object, known: object, where: string, misplaced?: (key: string) => string | undefined): void {
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(known, key)) continue;
    const names = Object.keys(known);
    const near = misplaced?.(key) ?? nearestName(key, names);
    const hint = near ? ` Did you mean '${near}'?` : '';
    throw new TypeError(`Unknown ${where} '${key}'.${hint} Accepted: ${names.join(', ')}.`);
  }
}

/** Throws a TypeError when enqueue options (or their retry/unique policies) hold a key the SDK does not define. */
export function checkEnqueueOptionKeys(options: EnqueueOptions): void {
  check(options, ENQUEUE, 'enqueue option', (key) =>
    Object.hasOwn(RETRY, key) ? `retry.${key}` : Object.hasOwn(UNIQUE, key) && key !== 'keys' ? `unique.${key}` : undefined,
  );
  if (typeof options.retry === 'object' && options.retry !== null) check(options.retry, RETRY, 'retry option');
  if (typeof options.unique === 'object' && options.unique !== null) check(options.unique, UNIQUE, 'unique option');
  if (typeof options.rateLimit === 'object' && options.rateLimit !== null) check(options.rateLimit, RATE_LIMIT, 'rate limit option');
}
