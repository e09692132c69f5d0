/**
 * Shared steps of the consumer checks: pack the workspace's published packages, install the tarballs into a
 * fresh project with a given package manager, run and type-check code there. Plain Node, no dependencies, so
 * it runs before anything is installed or built.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Every published package of the workspace, by directory. */
export const PUBLISHED = ['packages/core', 'packages/contract', 'packages/memory', 'packages/redis', 'packages/postgres', 'packages/client', 'apps/gateway'];

/** What a consumer app installs to run jobs in-process or against a gateway. */
export const CONSUMED = ['@ojskit/core', '@ojskit/memory', '@ojskit/client'];

/**
 * corepack fetches package managers from the npm registry (repo.yarnpkg.com may be unreachable), without
 * asking first.
 */
export const COREPACK_ENV = { COREPACK_ENABLE_DOWNLOAD_PROMPT: '0', COREPACK_NPM_REGISTRY: 'https://registry.npmjs.org' };

/** Yarn through corepack: the version a fresh project gets, pinned so the check is repeatable. */
export const YARN = 'yarn@4.18.1';

export class CheckError extends Error {}

/**
 * The environment of a user's shell: this process's, without the `npm_*` variables a package manager sets for
 * the script it runs (`pnpm consumer:check` passes pnpm's settings as `npm_config_*`, which npm warns about).
 */
export function userEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

/** Runs a command; throws CheckError with its output when it fails. Returns stdout + stderr. */
export function run(command, args, options = {}) {
  const env = options.env ? { ...userEnv(), ...options.env } : userEnv();
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: options.timeoutMs ?? 120_000, cwd: options.cwd, env });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error || result.status !== 0) {
    throw new CheckError(
      `\`${[command, ...args].join(' ')}\` failed (${result.error?.message ?? `exit ${result.status}`}) in ${options.cwd ?? process.cwd()}:\n${output}`,
    );
  }
  return output;
}

/** Lines of a command's output that warn (npm, pnpm, yarn and Node spell it differently). */
export function warnings(output) {
  return output
    .split('\n')
    .filter((line) => /\bwarn(ing)?\b|\bWARN\b|YN0060|YN0002|DeprecationWarning|ExperimentalWarning/i.test(line) && !/YN0000/.test(line));
}

/** `pnpm pack`s every published package into `dir`; returns { name: absolute tarball path }. */
export function packAll(root, dir) {
  mkdirSync(dir, { recursive: true });
  const manifests = PUBLISHED.map((pkg) => ({ pkg, manifest: JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) }));
  for (const { pkg, manifest } of manifests) {
    for (const entry of Object.values(manifest.exports)) {
      if (!existsSync(join(root, pkg, entry.default)))
        throw new CheckError(`${manifest.name} is not built (${entry.default} is missing): run \`pnpm build\` first.`);
    }
  }
  // The README's command: one recursive pack of the workspace packages (the root is private).
  run('pnpm', ['-r', '--filter', './packages/*', '--filter', './apps/*', 'pack', '--pack-destination', dir], { cwd: root });
  const tarballs = {};
  for (const { manifest } of manifests) {
    const file = join(dir, `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`);
    if (!existsSync(file)) throw new CheckError(`pnpm pack made no ${file}; it made: ${readdirSync(dir).join(', ')}`);
    tarballs[manifest.name] = file;
  }
  return tarballs;
}

/**
 * A fresh project in `dir` depending on `names` as tarballs. Until the packages are on a registry, a
 * tarball's dependency on another `@ojskit/*` package (`@ojskit/core@0.1.0`) must be pointed at its tarball
 * too: `overrides` (npm), `pnpm.overrides`, `resolutions` (yarn). Each package README shows this file.
 */
export function writeProject(dir, manager, tarballs, names, type = 'module') {
  mkdirSync(dir, { recursive: true });
  const specs = Object.fromEntries(names.map((name) => [name, `file:${tarballs[name]}`]));
  // Every @ojskit tarball, so a transitive @ojskit dependency never goes to the registry.
  const all = Object.fromEntries(Object.entries(tarballs).map(([name, path]) => [name, `file:${path}`]));
  const manifest = { name: `ojskit-consumer-${manager}`, version: '0.0.0', private: true, type, dependencies: specs };
  if (manager === 'npm') manifest.overrides = Object.fromEntries(Object.entries(all).filter(([name]) => !(name in specs)));
  if (manager === 'pnpm') manifest.pnpm = { overrides: all };
  if (manager === 'yarn') manifest.resolutions = all;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (manager === 'yarn') writeFileSync(join(dir, '.yarnrc.yml'), 'nodeLinker: node-modules\nenableTelemetry: false\n');
}

/** Installs a project with `manager`; returns the output. */
export function install(dir, manager) {
  if (manager === 'npm') return run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir });
  if (manager === 'pnpm') return run('pnpm', ['install'], { cwd: dir });
  if (manager === 'yarn') {
    // CI=true makes yarn refuse to write the lockfile a fresh project needs.
    return run('corepack', [YARN, 'install', '--no-immutable'], { cwd: dir, env: { ...COREPACK_ENV, CI: '' } });
  }
  throw new CheckError(`unknown package manager ${manager}`);
}

/** Copies the consumer sources (app.mjs, app.cjs, app.mts, app.cts) into a project. */
export function copySources(fromDir, toDir, files) {
  for (const file of files) copyFileSync(join(fromDir, file), join(toDir, file));
}

/** Type-checks `file` in `dir` with the workspace's TypeScript under the given module/resolution settings. */
export function typecheck(root, dir, file, settings) {
  const requireFromRoot = createRequire(join(root, 'package.json'));
  const tsc = requireFromRoot.resolve('typescript/bin/tsc');
  const config = {
    compilerOptions: {
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      ...settings,
    },
    files: [file],
  };
  const name = `tsconfig.${settings.moduleResolution}.${file}.json`;
  writeFileSync(join(dir, name), JSON.stringify(config, null, 2));
  return run(process.execPath, [tsc, '-p', name], { cwd: dir });
}
