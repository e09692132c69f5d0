/** Backoff math: the delay before retry n, per the protocol's strategies, cap and jitter. */
import type { RetryPolicy } from '../schemas/retry-policy.js';

/**
 * Delay in ms before the retry that follows failed attempt `attempt` (1-based).
 * `random` returns a number in [0, 1); inject it to make jitter deterministic in tests.
 * @example retryDelayMs({ ...DEFAULT_RETRY_POLICY, jitter: false }, 3) // 4000
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, attempt);
  const i = policy.initialIntervalMs;
  const c = policy.backoffCoefficient;
  let raw: number;
  switch (policy.backoffStrategy) {
    case 'linear':
      raw = i * n;
      break;
    case 'constant':
    case 'none':
      raw = i;
      break;
    case 'polynomial':
      raw = i * n ** c;
      break;
    default:
      raw = i * c ** (n - 1);
  }
  let delay = Math.min(raw, policy.maxIntervalMs);
  if (policy.jitter) delay = Math.min(delay * (0.5 + random()), policy.maxIntervalMs);
  return Math.round(delay);
}
