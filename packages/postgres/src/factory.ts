/** `createPostgresDriver(url)`: pool + migrations + LISTEN in one call (what the gateway's `--backend postgres://` uses). */
import pg from 'pg';
import { DEFAULT_SCHEMA, migrate } from './migrate.js';
import { PostgresDriver, type PostgresDriverOptions } from './postgres-driver.js';

export interface CreatePostgresDriverOptions extends Omit<PostgresDriverOptions, 'pool' | 'ownsPool' | 'schema'> {
  /** Schema of the ojskit tables. Default: the URL's `?schema=` parameter, else `ojskit`. */
  schema?: string;
  /** Apply pending migrations first (idempotent, safe from many processes). Default true. */
  migrate?: boolean;
  /** Most connections the pool opens. Default 10. */
  max?: number;
  /** Extra pg pool settings. `options` (server settings) are appended to `GENERIC_PLANS`. */
  pool?: Omit<pg.PoolConfig, 'connectionString' | 'max'>;
}

/**
 * Server settings of the pool's connections: plan the driver's prepared statements once, and never JIT-compile
 * them. Left to choose, the server re-plans the claim at every call (its estimate for a `LIMIT $2` over unnested
 * queues makes the generic plan look 20× dearer than it is), and planning costs more than claiming a batch of
 * 50 jobs. The plans are the same either way. That inflated estimate also crosses `jit_above_cost` (100 000 by
 * default): the claim with history lines (cost ~103 000) was JIT-compiled at every execution, ~0.5 s of CPU
 * per FETCH (BENCHMARKS.md, "JIT"); statements of a few milliseconds never gain from JIT. Settings given in
 * `pool.options` or PGOPTIONS come after these and win.
 */
export const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan -c jit=off';

/**
 * Splits ojskit's own `schema` parameter off a connection URL (pg would send it to the server as a setting).
 * @example parsePostgresUrl('postgres://db/app?schema=jobs') // { connectionString: 'postgres://db/app', schema: 'jobs' }
 */
export function parsePostgresUrl(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/**
 * Connects to `url`, migrates the schema (unless told not to), starts listening for events, and returns
 * a driver that ends its pool on `close()`.
 * @example
 * const driver = await createPostgresDriver('postgres://postgres@127.0.0.1:5432/app?schema=ojskit');
 * const engine = new Engine({ driver });
 */
export async function createPostgresDriver(url: string, options: CreatePostgresDriverOptions = {}): Promise<PostgresDriver> {
  const { connectionString, schema: urlSchema } = parsePostgresUrl(url);
  const schema = options.schema ?? urlSchema ?? DEFAULT_SCHEMA;
  const serverOptions = [GENERIC_PLANS, options.pool?.options ?? process.env['PGOPTIONS']].filter(Boolean).join(' ');
  const pool = new pg.Pool({ ...options.pool, connectionString, max: options.max ?? 10, options: serverOptions });
  try {
    if (options.migrate !== false)
      await migrate({
        pool,
        schema,
        dispatchLog: options.dispatchLog === true,
        ...(options.finishedPartitions !== undefined ? { finishedPartitions: options.finishedPartitions } : {}),
      });
    const { schema: _s, migrate: _m, max: _x, pool: _p, ...driverOptions } = options;
    const driver = new PostgresDriver({ ...driverOptions, pool, schema, ownsPool: true });
    await driver.events?.listen();
    return driver;
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}
