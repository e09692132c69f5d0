/**
 * The shared driver-level suite against PostgreSQL: an empty schema per case (recycled, see
 * support/schema-pool.ts), peers on a pool of connections of their own (another process, as far as the
 * server can tell).
 */
import { afterAll, describe } from 'vitest';
import pg from 'pg';
import { runDriverContract } from '@ojskit/contract';
import { PostgresDriver } from '../src/postgres-driver.js';
import { DATABASE_URL, HAVE_PG } from './support/database.js';
import { SchemaPool } from './support/schema-pool.js';

if (HAVE_PG) {
  const schemas = new SchemaPool();
  const peerPool = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
  afterAll(async () => {
    await peerPool.end();
    await schemas.dropAll();
  });

  runDriverContract({
    name: 'postgres',
    create: async () => {
      const schema = await schemas.acquire();
      const driver = new PostgresDriver({ pool: schemas.pool, schema, events: false });
      const peers: PostgresDriver[] = [];
      return {
        driver,
        peer: async () => {
          const peer = new PostgresDriver({ pool: peerPool, schema, events: false });
          peers.push(peer);
          return peer;
        },
        close: async () => {
          for (const peer of peers) await peer.close();
          await driver.close();
          await schemas.release(schema);
        },
      };
    },
  });
} else {
  describe.skip('OJS driver contract: postgres (PostgreSQL unreachable; fails under CI=true)', () => {});
}
