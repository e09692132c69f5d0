#!/usr/bin/env node
/**
 * Using the packages in your own project, checked: packs every published package (`pnpm pack`), installs the
 * tarballs into a fresh project outside the repository with npm, pnpm and yarn (through corepack), and in
 * each runs an ESM and a CommonJS consumer (enqueue, a worker processes the job, over @ojskit/memory; the ESM one
 * also imports and resolves core's subpath exports) and type-checks consumers with TypeScript (the ES module one
 * imports `@ojskit/core/driver`): node16, bundler and CommonJS (nodenext) in the first project, node16
 * in the others. Fails on the first error, or on a warning printed by an install.
 *
 *   node scripts/consumer/check.mjs [--managers npm,pnpm,yarn] [--keep]
 *
 * Needs the packages built (`pnpm build`; `pnpm test` builds first) and the npm registry.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSUMED, CheckError, copySources, install, packAll, run, typecheck, warnings, writeProject } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const args = process.argv.slice(2);
const managers = (args.includes('--managers') ? args[args.indexOf('--managers') + 1] : 'npm,pnpm,yarn').split(',');
const keep = args.includes('--keep');

/** TypeScript settings a consumer may use: ES module under node16 and bundler, CommonJS under nodenext. */
const TS_MODES = [
  ['app.mts', { module: 'node16', moduleResolution: 'node16' }],
  ['app.mts', { module: 'esnext', moduleResolution: 'bundler' }],
  ['app.cts', { module: 'nodenext', moduleResolution: 'nodenext' }],
];

const work = mkdtempSync(join(tmpdir(), 'ojskit-consumer-'));
const started = Date.now();
const step = (text) => console.log(`consumer-check: ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
try {
  const tarballs = packAll(root, join(work, 'tarballs'));
  step(`packed ${Object.keys(tarballs).length} packages`);
  for (const manager of managers) {
    const dir = join(work, manager);
    writeProject(dir, manager, tarballs, CONSUMED);
    const noise = warnings(install(dir, manager));
    if (noise.length > 0) throw new CheckError(`${manager} install warned:\n${noise.join('\n')}`);
    step(`${manager}: installed ${CONSUMED.join(', ')} from the tarballs, no warning`);
    copySources(here, dir, ['app.mjs', 'app.cjs', 'app.mts', 'app.cts']);
    for (const [file, expected] of [
      ['app.mjs', 'esm: completed msg-ada@example.com'],
      ['app.cjs', 'cjs: completed msg-ada@example.com'],
    ]) {
      const output = run(process.execPath, [file], { cwd: dir, timeoutMs: 30_000 }).trim();
      if (output !== expected) throw new CheckError(`${manager} ${file} printed:\n${output}\nexpected: ${expected}`);
    }
    step(`${manager}: ESM import (a subpath too), createRequire().resolve and CommonJS require() run a job`);
    // The resolution modes once (npm's flat node_modules), and node16 again in each other layout (pnpm's
    // symlinks, yarn's hoisting): tsc is the slow part, and the check stays under a minute and a half.
    const modes = manager === managers[0] ? TS_MODES : TS_MODES.slice(0, 1);
    for (const [file, settings] of modes) typecheck(root, dir, file, settings);
    step(`${manager}: tsc accepts ${modes.map(([, settings]) => settings.moduleResolution).join(', ')} consumers`);
  }
  console.log(`consumer-check: OK with ${managers.join(', ')}`);
} catch (error) {
  console.error(`consumer-check: FAILED: ${error instanceof CheckError ? error.message : (error?.stack ?? error)}`);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`consumer-check: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
