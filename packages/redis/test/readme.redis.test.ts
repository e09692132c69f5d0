/** Runs the README's example as a separate process, so the documented code cannot rot. */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, redisAvailable, uniquePrefix } from './support.js';

const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

describe.skipIf(!redisAvailable)('README example', () => {
  it('runs and prints the completed job', () => {
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeTruthy();
    const file = fileURLToPath(new URL(`./readme-example.${process.pid}.tmp.ts`, import.meta.url));
    writeFileSync(file, code!.replace("prefix: 'readme'", `prefix: '${uniquePrefix('readme')}'`));
    try {
      const run = spawnSync(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', file], {
        env: { ...process.env, REDIS_URL },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.stderr).not.toMatch(/Error/);
      expect(run.stdout.trim()).toBe("completed { sent: 'ada@example.com' }");
    } finally {
      rmSync(file, { force: true });
    }
  }, 40_000);
});
