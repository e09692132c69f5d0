/** Running a step atomically: in a transaction of our own, or inside a caller's open one (as a savepoint). */
import type { Pool, PoolClient } from 'pg';
import { isConnectionError, toOjsError } from './pg-errors.js';
import type { Queryable } from './statements.js';

/**
 * Runs `body` atomically. With `tx` (a caller's client inside their open transaction) the work joins it
 * behind a savepoint, so a failure here rolls back only our part and leaves their transaction usable;
 * it commits or rolls back with their own writes. Without `tx`, a pool client runs BEGIN … COMMIT.
 */
export async function atomically<T>(pool: Pool, tx: Queryable | undefined, body: (on: Queryable) => Promise<T>): Promise<T> {
  if (tx !== undefined) {
    await raw(tx, 'SAVEPOINT ojskit_step');
    try {
      const result = await body(tx);
      await raw(tx, 'RELEASE SAVEPOINT ojskit_step');
      return result;
    } catch (error) {
      await raw(tx, 'ROLLBACK TO SAVEPOINT ojskit_step').catch(() => {});
      await raw(tx, 'RELEASE SAVEPOINT ojskit_step').catch(() => {});
      throw error;
    }
  }
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toOjsError(error, 'connect');
  }
  let broken: unknown;
  // pg-pool takes its error listener off a client it hands out, and pg's client emits 'error' when its connection
  // fails, with a query running or not (between two statements of this transaction, say): unheard, that event
  // would end the process. The step fails through its rejected query instead; the client is then destroyed.
  const onError = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await raw(client, 'BEGIN');
    const result = await body(client);
    await raw(client, 'COMMIT');
    return result;
  } catch (error) {
    if (isConnectionError(error) || isConnectionError((error as Error).cause)) broken = error;
    else if (broken === undefined) await raw(client, 'ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
    throw error;
  } finally {
    // A client whose connection failed is destroyed rather than returned to the pool; it keeps the listener, as
    // a dying connection may report more than once.
    if (broken === undefined) client.removeListener('error', onError);
    client.release(broken instanceof Error ? broken : undefined);
  }
}

async function raw(on: Queryable, text: string): Promise<void> {
  try {
    await on.query({ text });
  } catch (error) {
    throw toOjsError(error, text);
  }
}
