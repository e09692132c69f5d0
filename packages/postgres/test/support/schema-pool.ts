/**
 * Migrated schemas for suites that open many subjects (the contract suite opens one per case, and 1000 for
 * its model property). Each subject gets a schema of its own for as long as it lives; a released schema is
 * emptied and handed to the next subject instead of being dropped and migrated again (the DDL dominates
 * the cost of a case). `dropAll()` drops every schema at the end.
 */
import pg from 'pg';
import { SESSION_SETTINGS } from '../../src/factory.js';
import { migrate } from '../../src/migrate.js';
import { DATABASE_URL, uniqueSchema } from './database.js';

/** Every table the driver writes, emptied between subjects. */
const TABLES = ['jobs', 'jobs_finished', 'queues', 'workers', 'crons', 'workflows', 'leases', 'event_overflow', 'rate_limits'];

export class SchemaPool {
  /**
   * Shared by the subjects' drivers (they do not own it). Planned as `createPostgresDriver`'s pools are (the
   * suites on database.ts's pools run with the server's default plan choice).
   */
  readonly pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6, options: `${SESSION_SETTINGS} -c synchronous_commit=off` });
  private readonly free: string[] = [];
  private readonly all: string[] = [];

  /** A migrated, empty schema no live subject uses. */
  async acquire(): Promise<string> {
    const schema = this.free.pop();
    if (schema !== undefined) return schema;
    const fresh = uniqueSchema('ojs_c');
    this.all.push(fresh);
    await migrate({ pool: this.pool, schema: fresh });
    return fresh;
  }

  /** Empties a schema (DELETE is cheaper than TRUNCATE on tables this small) and makes it available again. */
  async release(schema: string): Promise<void> {
    await this.pool.query(TABLES.map((t) => `DELETE FROM "${schema}".${t}`).join('; '));
    this.free.push(schema);
  }

  async dropAll(): Promise<void> {
    for (const schema of this.all) await this.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await this.pool.end();
  }
}
