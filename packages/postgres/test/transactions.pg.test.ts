/**
 * `atomically` when the connection of its pool client fails mid-transaction: the step fails with an error, the
 * process does not (pg's client emits 'error' on a lost connection, and pg-pool stops listening to a client it
 * hands out; an unheard 'error' ends a Node process, and vitest fails the run on it).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { atomically } from '../src/transactions.js';
import { DATABASE_URL, HAVE_PG } from './support/database.js';

describe.runIf(HAVE_PG)('atomically, connection lost mid-transaction', () => {
  const opened: Array<{ end(): Promise<void> }> = [];
  afterEach(async () => {
    for (const c of opened.splice(0)) await c.end();
  });

  it('fails the step, leaves the process and the pool working', async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    // as the driver's pool does: an idle client's failure is reported, not thrown
    pool.on('error', () => {});
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    opened.push(pool, admin);

    const step = atomically(pool, undefined, async (on) => {
      const { rows } = await on.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // no query of ours runs while the connection ends: the client reports it as an 'error' event only
      await new Promise((resolve) => setTimeout(resolve, 300));
      await on.query({ text: 'SELECT 1' });
    });
    await expect(step).rejects.toThrow();
    // the broken client was destroyed, not handed out again
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);
  });
});
