/**
 * `kafka://host:port[,host:port…]?store=<store URL>[&prefix=…]`: the gateway's `--backend` form. The store URL
 * (`redis://…`, `rediss://…`, `postgres://…`) is URL-encoded when it carries its own query.
 */
import type { Driver } from '@ojskit/core/driver';
import { createKafkaDriver, type KafkaDriver } from './kafka-driver.js';

export interface KafkaUrl {
  brokers: string[];
  store: string;
  prefix: string;
}

/**
 * Reads a `kafka://` backend URL.
 * @example parseKafkaUrl('kafka://127.0.0.1:9092?store=redis://127.0.0.1:6379') // { brokers: ['127.0.0.1:9092'], store: 'redis://127.0.0.1:6379', prefix: 'ojs' }
 */
export function parseKafkaUrl(url: string): KafkaUrl {
  const match = /^kafka:\/\/([^?/]+)\/?(?:\?(.*))?$/i.exec(url);
  if (!match) throw new Error(`@ojskit/kafka: expected kafka://host:port[,host:port]?store=<redis:// or postgres:// URL>, got '${url}'`);
  const params = new URLSearchParams(match[2] ?? '');
  const store = params.get('store');
  if (!store) throw new Error(`@ojskit/kafka: '${url}' names no store: add ?store=redis://… or ?store=postgres://…`);
  const brokers = match[1]!.split(',').filter(Boolean);
  return { brokers, store, prefix: params.get('prefix') ?? 'ojs' };
}

/** Imports an optional store adapter by name (the compiler must not require it installed). */
async function importStore(packageName: string): Promise<Record<string, unknown>> {
  const specifier: string = packageName;
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`@ojskit/kafka: the store needs ${packageName}: install it next to @ojskit/kafka`, { cause: error });
  }
}

async function createStore(url: string, prefix: string): Promise<Driver> {
  if (/^rediss?:\/\//i.test(url)) {
    const mod = await importStore('@ojskit/redis');
    const create = mod['createRedisDriver'] as (url: string, options: object) => Driver & { connect(): Promise<Driver> };
    return create(url, { prefix, dispatchLog: true }).connect();
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    const mod = await importStore('@ojskit/postgres');
    const create = mod['createPostgresDriver'] as (url: string, options: object) => Promise<Driver>;
    return create(url, { dispatchLog: true });
  }
  throw new Error(`@ojskit/kafka: unsupported store '${url}': use redis://, rediss:// or postgres://`);
}

/**
 * The driver a `kafka://` URL names, its store created with `dispatchLog: true` (the gateway's adapter convention).
 * @example const driver = await createDriverFromUrl('kafka://127.0.0.1:9092?store=redis://127.0.0.1:6379&prefix=app');
 */
export async function createDriverFromUrl(url: string): Promise<KafkaDriver> {
  const { brokers, store, prefix } = parseKafkaUrl(url);
  const storeDriver = await createStore(store, prefix);
  try {
    return await createKafkaDriver({ brokers, store: storeDriver, prefix });
  } catch (error) {
    await storeDriver.close().catch(() => {});
    throw error;
  }
}
