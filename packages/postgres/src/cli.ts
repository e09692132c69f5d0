/**
 * `ojskit-postgres`: operations on an ojskit Postgres schema from the shell.
 *
 *   ojskit-postgres migrate --url postgres://user@host:5432/db [--schema ojskit]
 *
 * `--url` defaults to $DATABASE_URL; `--schema` to the URL's `?schema=`, else `ojskit`.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { parsePostgresUrl } from './factory.js';
import { DEFAULT_SCHEMA, migrate } from './migrate.js';

const USAGE = 'usage: ojskit-postgres migrate --url postgres://user@host:5432/db [--schema ojskit]';

const MigrateArgs = z.object({
  command: z.literal('migrate', { error: `unknown command. ${USAGE}` }),
  url: z
    .string({ error: `--url (or DATABASE_URL) is required. ${USAGE}` })
    .regex(/^postgres(ql)?:\/\//, { error: '--url must be a postgres:// or postgresql:// URL' }),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,47}$/, { error: '--schema must be lowercase letters, digits and _ (at most 48)' })
    .optional(),
});

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { url?: string | undefined; schema?: string | undefined; help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { url: { type: 'string' }, schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const parsed = MigrateArgs.safeParse({ command: positionals[0], url: values.url ?? env['DATABASE_URL'], schema: values.schema });
  if (!parsed.success) {
    console.error(parsed.error.issues.map((i) => i.message).join('\n'));
    return 2;
  }
  const { connectionString, schema: urlSchema } = parsePostgresUrl(parsed.data.url);
  const schema = parsed.data.schema ?? urlSchema ?? DEFAULT_SCHEMA;
  const pool = new pg.Pool({ connectionString, max: 1 });
  try {
    const result = await migrate({ pool, schema });
    const applied = result.applied.length > 0 ? `applied ${result.applied.join(', ')}` : 'up to date';
    console.log(`ojskit-postgres: schema "${schema}" ${applied}${result.lifecycleUpdated ? '; lifecycle constraint and trigger installed' : ''}`);
    return 0;
  } catch (error) {
    console.error(`ojskit-postgres: migration failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await pool.end();
  }
}
