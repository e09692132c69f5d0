/**
 * The settings `createPostgresDriver` gives its connections (SESSION_SETTINGS). Without `jit=off`, once the jobs
 * table was analysed with a few thousand jobs the claim's generic plan cost passed `jit_above_cost` and every
 * claim was compiled by LLVM (~380 ms for a ~3 ms statement): `pnpm bench` processed 55-900 jobs/s.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDriver } from '../src/factory.js';
import { DATABASE_URL, HAVE_PG, uniqueSchema } from './support/database.js';

describe.runIf(HAVE_PG)('createPostgresDriver session settings', () => {
  const schema = uniqueSchema('ojs_settings');
  afterAll(async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('plans prepared statements once and never JIT-compiles them; settings of the caller come after and win', async () => {
    const driver = await createPostgresDriver(`${DATABASE_URL}?schema=${schema}`, { events: false, pool: { options: '-c work_mem=8MB' } });
    try {
      // The pool is the driver's own; reading a setting through it is the only way to see what its connections run with.
      const pool = (driver as unknown as { pool: pg.Pool }).pool;
      const setting = async (name: string) => (await pool.query<{ setting: string }>(`SELECT current_setting('${name}') AS setting`)).rows[0]!.setting;
      expect(await setting('jit')).toBe('off');
      expect(await setting('plan_cache_mode')).toBe('force_generic_plan');
      expect(await setting('work_mem')).toBe('8MB');
    } finally {
      await driver.close();
    }
  });
});
