/**
 * The fault tests' store factory and job names, apart from the vitest-side helpers so that the fixture
 * scripts run in child processes load only what they use (starting a child is slow on a loaded machine).
 */
import type { Driver } from '@ojskit/core/driver';

/** The store kinds the fault tests run on. */
export type StoreKind = 'redis' | 'postgres';

export const FAULT_QUEUE = 'faults';
export const FAULT_TYPE = 'fault.job';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A store of `kind` on `namespace` (`url` overrides the shared service's address: a proxy, a private server). */
export async function storeOf(kind: StoreKind, namespace: string, url?: string): Promise<Driver> {
  if (kind === 'redis') {
    const { createRedisDriver } = await import('@ojskit/redis');
    return createRedisDriver(url ?? REDIS_URL, { prefix: namespace, checkMemoryPolicy: false, dispatchLog: true });
  }
  const { createPostgresDriver } = await import('@ojskit/postgres');
  return createPostgresDriver(url ?? DATABASE_URL, { schema: namespace.replace(/\./g, '_'), dispatchLog: true, max: 4 });
}
