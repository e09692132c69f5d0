#!/usr/bin/env node
/**
 * The first hour, end to end, as a newcomer walks it: a clean clone of this repository installs with no
 * warning (through corepack on a PATH without pnpm, then with a global pnpm), `corepack pnpm start` serves the
 * gateway on the port from PORT, a fresh npm project outside the repository installs the packed tarballs, its
 * worker processes a job enqueued over HTTP, and the gateway shuts down on SIGTERM. Fails on the first error
 * or on any warning printed on the way.
 *
 *   node scripts/consumer/first-hour.mjs [--keep]
 *
 * Needs git, corepack (Node 20-24) and the npm registry; commits only (it clones HEAD).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COREPACK_ENV, CheckError, copySources, install, packAll, run, userEnv, warnings, writeProject } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'ojskit-first-hour-'));
const started = Date.now();
const step = (text) => console.log(`first-hour: ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

/** A PATH like this one without pnpm, pnpx and yarn: a machine where only Node (and its corepack) is installed. */
function pathWithoutPnpm(dir) {
  mkdirSync(dir);
  for (const entry of (process.env.PATH ?? '').split(delimiter)) {
    if (!existsSync(entry)) continue;
    for (const name of readdirSync(entry)) {
      if (['pnpm', 'pnpx', 'yarn', 'yarnpkg'].includes(name) || existsSync(join(dir, name))) continue;
      symlinkSync(join(entry, name), join(dir, name));
    }
  }
  return dir;
}

function assertQuiet(what, output) {
  const noise = warnings(output);
  if (noise.length > 0) throw new CheckError(`${what} warned:\n${noise.join('\n')}`);
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

let gateway;
try {
  const clone = join(work, 'ojskit');
  run('git', ['clone', '--quiet', root, clone]);
  step('cloned');
  const bare = userEnv({ ...COREPACK_ENV, PATH: pathWithoutPnpm(join(work, 'bin')) });
  delete bare.COREPACK_NPM_REGISTRY; // the README's command, as a user runs it
  assertQuiet('corepack pnpm install (no pnpm on the PATH)', run('corepack', ['pnpm', 'install'], { cwd: clone, env: bare }));
  step('`corepack pnpm install` on a PATH without pnpm: no warning');
  rmSync(join(clone, 'node_modules'), { recursive: true, force: true });
  assertQuiet('pnpm install (global pnpm)', run('pnpm', ['install'], { cwd: clone }));
  step('`pnpm install` with the global pnpm: no warning');

  // The clone's builds read this checkout's turbo cache: its files are this checkout's committed ones, so every
  // task whose inputs match replays outputs the build step of `pnpm test` just produced and checked, instead
  // of compiling them again (about a minute of CPU). Anything that differs still builds.
  const cache = join(root, '.turbo', 'cache');
  const built = existsSync(cache) ? { ...bare, TURBO_CACHE_DIR: cache } : bare;
  const port = await freePort();
  gateway = spawn('corepack', ['pnpm', 'start'], {
    cwd: clone,
    env: { ...built, PORT: String(port), OJSKIT_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  gateway.stdout.on('data', (chunk) => (output += chunk));
  gateway.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 240_000;
  while (!output.includes(`ready at ${url}/`)) {
    if (gateway.exitCode !== null) throw new CheckError(`corepack pnpm start exited with ${gateway.exitCode}:\n${output}`);
    if (Date.now() > until) throw new CheckError(`the gateway did not say "ready at ${url}/" within 4 minutes:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  step(`\`PORT=${port} corepack pnpm start\`: built and ready at ${url}/`);

  run('corepack', ['pnpm', 'turbo', 'run', 'build', '--filter=@ojskit/client...', '--output-logs=errors-only'], { cwd: clone, env: built, timeoutMs: 240_000 });
  const tarballs = packAll(clone, join(work, 'tarballs'));
  const app = join(work, 'my-app');
  // The root README's recipe: depend on the client; its @ojskit/core comes from the core tarball (overrides).
  writeProject(app, 'npm', tarballs, ['@ojskit/client']);
  assertQuiet('npm install in the consumer project', install(app, 'npm'));
  copySources(here, app, ['worker-http.mjs']);
  step('a fresh npm project installed @ojskit/client (and @ojskit/core through overrides) from the packed tarballs: no warning');
  const result = run(process.execPath, ['worker-http.mjs'], { cwd: app, env: { OJS_URL: url }, timeoutMs: 30_000 }).trim();
  if (result !== 'worker: completed hello ada') throw new CheckError(`the consumer's worker printed:\n${result}`);
  step(`enqueued over HTTP, the consumer's worker processed it: "${result}"`);

  const exited = once(gateway, 'exit');
  gateway.kill('SIGTERM');
  const [code] = await exited;
  gateway = undefined;
  if (code !== 0 || !output.includes('"msg":"stopped"')) throw new CheckError(`the gateway exited with ${code} on SIGTERM:\n${output}`);
  assertQuiet('the gateway (start, requests, shutdown)', output);
  step('SIGTERM: the gateway stopped (exit 0); nothing it printed was a warning');
  console.log('first-hour: OK');
} catch (error) {
  console.error(`first-hour: FAILED: ${error instanceof CheckError ? error.message : (error?.stack ?? error)}`);
  process.exitCode = 1;
} finally {
  if (gateway && gateway.exitCode === null) gateway.kill('SIGKILL');
  if (keep) console.log(`first-hour: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
