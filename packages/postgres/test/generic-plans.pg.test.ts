/**
 * `GENERIC_PLANS`, the settings of `createPostgresDriver`'s connections: statements planned once, and never
 * JIT-compiled. The generic plan of the claim is estimated at ~100 000 (its `LIMIT $2` and the age-boost walk),
 * past the default `jit_above_cost`: with JIT on, each FETCH paid ~0.5 s of compilation (BENCHMARKS.md, "JIT").
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { GENERIC_PLANS } from '../src/factory.js';
import { DATABASE_URL, HAVE_PG } from './support/database.js';

describe.runIf(HAVE_PG)('GENERIC_PLANS', () => {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: GENERIC_PLANS });
  afterAll(() => pool.end());

  it('plans prepared statements once and turns JIT off on the connections it is given to', async () => {
    const setting = async (name: string) => (await pool.query<{ value: string }>('SELECT current_setting($1) AS value', [name])).rows[0]!.value;
    expect(await setting('plan_cache_mode')).toBe('force_generic_plan');
    expect(await setting('jit')).toBe('off');
  });
});
