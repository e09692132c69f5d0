#!/usr/bin/env node
/**
 * `pnpm test:model [runs]`: the long form of the contract's model-based property (`model.random-sequences`).
 * `pnpm test` runs a sample on each backend (the test files say how many and why); this runs `runs` sequences
 * (default 1000) on every backend — memory, Redis and PostgreSQL at engine level, then over HTTP on each — one
 * suite after another, and prints how many sequences each ran, how long it took, and whether it passed.
 * A failure prints fast-check's seed: `OJSKIT_CONTRACT_MODEL_SEED=<seed>` replays it.
 *
 *   corepack pnpm test:model            # 1000 sequences per suite
 *   corepack pnpm test:model 5000
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runs = Number(process.argv[2] ?? 1_000);
if (!Number.isInteger(runs) || runs <= 0) {
  console.error('usage: pnpm test:model [runs]   (runs: a positive integer, default 1000)');
  process.exit(2);
}

const SUITES = [
  { name: 'memory', dir: 'packages/contract', files: ['test/memory.backend.test.ts'] },
  { name: 'redis', dir: 'packages/redis', files: ['test/contract.test.ts'] },
  { name: 'postgres', dir: 'packages/postgres', files: ['test/contract.test.ts'] },
  {
    name: 'http (memory, redis, postgres)',
    dir: 'apps/gateway',
    files: ['test/contract.http.test.ts', 'test/contract.http.redis.test.ts', 'test/contract.http.postgres.test.ts'],
  },
];

const out = mkdtempSync(join(tmpdir(), 'ojskit-model-'));
const lines = [];
let failed = false;
for (const suite of SUITES) {
  const report = join(out, `${suite.dir.replaceAll('/', '-')}.json`);
  console.log(`test:model: ${suite.name}: ${runs} sequences per suite`);
  const run = spawnSync(
    'corepack',
    ['pnpm', 'exec', 'vitest', 'run', ...suite.files, '-t', 'model\\.random-sequences', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { cwd: join(root, suite.dir), stdio: 'inherit', env: { ...process.env, OJSKIT_CONTRACT_MODEL_RUNS: String(runs) } },
  );
  let cases = [];
  try {
    cases = JSON.parse(readFileSync(report, 'utf8')).testResults.flatMap((file) =>
      file.assertionResults.filter((c) => c.title.includes('model.random-sequences')),
    );
  } catch {
    // No report: vitest itself failed; its exit code says so below.
  }
  if (run.status !== 0 || cases.length === 0) failed = true;
  for (const c of cases) {
    const sequences = /\((\d+) runs\)/.exec(c.title)?.[1] ?? '?';
    lines.push(`${c.ancestorTitles[0] ?? suite.name}: ${sequences} sequences ${c.status} in ${((c.duration ?? 0) / 1000).toFixed(1)} s`);
  }
  if (cases.length === 0) lines.push(`${suite.name}: no model case ran (vitest exited ${run.status})`);
}
rmSync(out, { recursive: true, force: true });
console.log(['test:model: results', ...lines.map((line) => `  ${line}`)].join('\n'));
process.exitCode = failed ? 1 : 0;
