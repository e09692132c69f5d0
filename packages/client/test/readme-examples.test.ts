/**
 * READMEs of other packages whose examples use the SDK but whose package cannot depend on it (the memory
 * adapter: the client depends on it): each ```ts block runs here as pasted, as a file importing the packages
 * by name, and prints what its comments say.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const blocks = (path: string): string[] => [...readFileSync(new URL(path, import.meta.url), 'utf8').matchAll(/```ts[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** Runs a snippet as a module in this test folder (so `@ojskit/*` resolve as in a user's project) and returns its output. */
function runSnippet(code: string): { stdout: string; stderr: string; status: number | null } {
  const file = fileURLToPath(new URL(`./readme-snippet.${process.pid}.tmp.ts`, import.meta.url));
  writeFileSync(file, code);
  try {
    const run = spawnSync(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', file], { encoding: 'utf8', timeout: 30_000 });
    return { stdout: run.stdout, stderr: run.stderr, status: run.status };
  } finally {
    rmSync(file, { force: true });
  }
}

/** What the `console.log(...)` lines of a snippet say they print (their trailing `// …` comments). */
const promised = (code: string): string[] =>
  code
    .split('\n')
    .filter((l) => l.includes('console.log('))
    .map((l) => l.slice(l.lastIndexOf('// ') + 3));

describe('@ojskit/memory README', () => {
  it.each(blocks('../../memory/README.md').map((code, i) => [i, code] as const))(
    'example %i runs as pasted',
    (_i, code) => {
      const { stdout, stderr, status } = runSnippet(code);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      expect(stdout.trim().split('\n')).toEqual(promised(code));
    },
    40_000,
  );
});

describe('@ojskit/core README', () => {
  // The engine example (fenced `ts no-run` there) needs an adapter, which core cannot depend on. Core's own
  // test runs its first example; its other `no-run` blocks are fragments of an adapter's event transport.
  const engineExample = blocks('../../core/README.md').find((code) => code.includes("from '@ojskit/memory'"));

  it('the engine example runs as pasted', () => {
    expect(engineExample).toBeDefined();
    const { stderr, status } = runSnippet(`${engineExample!}process.exit(0);\n`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
  }, 40_000);
});
