/**
 * The real services the Redis and Postgres runs use. Unreachable on a laptop → those runs are skipped
 * (visibly); unreachable under CI=true → the test file fails, so a skipped run never passes for a green one.
 */
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import pg from 'pg';
import { Engine } from '@ojskit/core';
import { migrate, PostgresDriver } from '@ojskit/postgres';
import { RedisDriver } from '@ojskit/redis';
import { WORKER_CONTRACT_SERVICES, type WorkerContractSubject } from '../../src/testing/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function requireInCi(service: string, ok: boolean): boolean {
  if (!ok && process.env.CI === 'true') throw new Error(`${service} is unreachable (CI=true requires it)`);
  return ok;
}

/** True when Redis accepts a TCP connection and answers PING. */
export async function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  const ok = await new Promise<boolean>((resolve) => {
    const socket = new Socket();
    const done = (result: boolean): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(Number(port || 6379), hostname, () => socket.write('PING\r\n'));
  });
  return requireInCi(`Redis at ${REDIS_URL}`, ok);
}

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return requireInCi(`PostgreSQL at ${DATABASE_URL}`, true);
  } catch {
    return requireInCi(`PostgreSQL at ${DATABASE_URL}`, false);
  } finally {
    await client.end().catch(() => {});
  }
}

const suffix = (): string => randomBytes(4).toString('hex');

/** An engine over Redis under a key prefix no one else uses; closing deletes the keys. */
export async function redisSubject(): Promise<WorkerContractSubject> {
  const driver = new RedisDriver({ url: REDIS_URL, prefix: `ojstest:client:${suffix()}`, checkMemoryPolicy: false });
  const engine = new Engine({ driver, services: WORKER_CONTRACT_SERVICES }).start();
  return {
    api: engine,
    close: async () => {
      await engine.stop();
      await driver.reset();
      await engine.close();
    },
  };
}

/** An engine over Postgres in a fresh schema; closing drops it. */
export async function postgresSubject(): Promise<WorkerContractSubject> {
  const schema = `ojs_client_${suffix()}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
  await migrate({ pool, schema });
  const driver = new PostgresDriver({ pool, schema });
  await driver.events?.listen();
  const engine = new Engine({ driver, services: WORKER_CONTRACT_SERVICES }).start();
  return {
    api: engine,
    close: async () => {
      await engine.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
