/** The README's example is examples/quickstart.ts, verbatim; this runs it against a fresh schema. */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DATABASE_URL, HAVE_PG, uniqueSchema } from './support/database.js';

const example = readFileSync(new URL('../examples/quickstart.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README example', () => {
  it('is examples/quickstart.ts, verbatim', () => {
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  describe.runIf(HAVE_PG)('against PostgreSQL', () => {
    const schema = uniqueSchema('ojs_readme');
    afterAll(async () => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });

    it('runs and prints "completed"', async () => {
      vi.stubEnv('DATABASE_URL', `${DATABASE_URL}?schema=${schema}`);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import('../examples/quickstart.js');
        expect(log).toHaveBeenCalledWith('completed');
      } finally {
        log.mockRestore();
        vi.unstubAllEnvs();
      }
    });
  });
});
