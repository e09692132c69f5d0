/** The start-up warning for a gateway anyone on the network can reach without credentials. */
import { isIP } from 'node:net';

/** True for addresses only this machine can reach: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * A warning to print when the gateway serves a non-loopback address without an API key (every job and
 * queue is then open to the network), else `undefined`.
 * @example exposureWarning({ host: '0.0.0.0', apiKeys: [] }) // 'WARNING: serving 0.0.0.0 without an API key…'
 */
export function exposureWarning(config: { host: string; apiKeys: readonly string[] }): string | undefined {
  if (config.apiKeys.length > 0 || isLoopback(config.host)) return undefined;
  return (
    `WARNING: serving ${config.host} without an API key: anyone who can reach this address can enqueue, ` +
    'cancel and purge jobs and pause queues. Set --api-key (OJSKIT_API_KEY), or bind 127.0.0.1 (the default).'
  );
}
