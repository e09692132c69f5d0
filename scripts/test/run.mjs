#!/usr/bin/env node
/**
 * `pnpm test`: every check CI runs. A step starts once the steps it runs after have passed (scripts/test/
 * stages.mjs), so independent steps run together, each output line prefixed with its step's name; a step
 * whose prerequisite failed does not start. Ends with each step's wall time and
 * CPU time (user + sys of the step's whole process tree, where /proc exists; a server's own work, such as
 * PostgreSQL executing a test's queries, is not in it), also written to the file named by OJSKIT_TEST_TIMES
 * (`.ci/run` prints it at its end).
 *
 *   node scripts/test/run.mjs [--only step,step]    (`--only test` names every `test:<package>` step)
 *
 * Plain Node, no dependencies: the tools it starts come from the root's node_modules/.bin, which it puts first on
 * the PATH (as `pnpm run` does).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POOLS, STEPS } from './stages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : undefined;

/** CPU seconds (user + sys) of this process's reaped children, or undefined off Linux. */
function childrenCpu() {
  if (!existsSync('/proc/self/stat')) return undefined;
  // Fields after the command name (which may hold spaces, hence the last ')'): cutime and cstime are the
  // 14th and 15th, in clock ticks (100 a second on every Linux Node runs on).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Copies a child's stream to ours line by line, each line prefixed with the step's name. */
function prefixLines(stream, out, prefix) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    if (lines.length > 0) out.write(lines.map((line) => `${prefix}${line}\n`).join(''));
  });
  stream.on('end', () => partial && out.write(`${prefix}${partial}\n`));
}

const running = new Set();
/** How many steps of each pool run now (stages.mjs's POOLS caps them). */
const inPool = new Map();
let cpuAtLastExit = childrenCpu();

/** Runs one step; resolves with its times and exit code. */
function runStep(step, width) {
  const started = performance.now();
  // The root's tools first on the PATH, as `pnpm run` puts them, so `node scripts/test/run.mjs` works on its own.
  const PATH = [join(root, 'node_modules', '.bin'), process.env.PATH].filter(Boolean).join(delimiter);
  const env = { ...process.env, PATH, ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}), ...step.env };
  // Its own process group, so an interrupt ends the whole tree (turbo, vitest workers, browsers).
  const child = spawn(step.command, { cwd: root, env, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const prefix = `${step.name.padEnd(width)} | `;
  prefixLines(child.stdout, process.stdout, prefix);
  prefixLines(child.stderr, process.stderr, prefix);
  let cpu;
  child.on('exit', () => {
    // The child was reaped just now: the growth of our children's CPU since the last reap is its tree's (two
    // steps ending in the same instant would share one figure).
    const cpuNow = childrenCpu();
    cpu = cpuNow === undefined ? undefined : cpuNow - cpuAtLastExit;
    cpuAtLastExit = cpuNow;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ name: step.name, code: code ?? 1, signal, wall: (performance.now() - started) / 1000, cpu });
    });
  });
}

function stopAll(signal) {
  for (const child of running) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAll(signal);
    process.exitCode = 130;
  });
}

function table(results, wall) {
  const seconds = (value) => (value === undefined ? '-' : `${value.toFixed(1)} s`);
  const width = Math.max(5, ...results.map((r) => r.name.length));
  const rows = results.map(
    (r) =>
      `${r.name.padEnd(width)}  ${seconds(r.wall).padStart(9)}  ${seconds(r.cpu).padStart(9)}  ${r.code === 0 ? 'ok' : r.signal ? `killed (${r.signal})` : `failed (exit ${r.code})`}`,
  );
  const cpu = results.every((r) => r.cpu !== undefined) ? results.reduce((sum, r) => sum + r.cpu, 0) : undefined;
  return [
    `${'step'.padEnd(width)}  ${'wall'.padStart(9)}  ${'cpu'.padStart(9)}`,
    ...rows,
    `${'total'.padEnd(width)}  ${seconds(wall).padStart(9)}  ${seconds(cpu).padStart(9)}`,
  ];
}

const started = performance.now();
const results = [];
const steps = STEPS.filter((step) => !only || only.has(step.name) || only.has(step.name.split(':')[0]));
const selected = new Set(steps.map((step) => step.name));
const width = Math.max(...steps.map((step) => step.name.length));
/** Steps not started yet; a prerequisite left out by --only counts as passed. */
const waiting = new Set(steps);
const passed = new Set();
const ended = new Set();
await new Promise((resolve) => {
  const startReady = () => {
    for (const step of waiting) {
      const after = step.after.filter((name) => selected.has(name));
      if (after.some((name) => ended.has(name) && !passed.has(name)) || process.exitCode) {
        waiting.delete(step);
        continue;
      }
      if (!after.every((name) => passed.has(name))) continue;
      // A full pool leaves the step waiting; steps start in the order stages.mjs lists them.
      if (step.pool && (inPool.get(step.pool) ?? 0) >= POOLS[step.pool]) continue;
      waiting.delete(step);
      if (step.pool) inPool.set(step.pool, (inPool.get(step.pool) ?? 0) + 1);
      console.log(`test: ${step.name} started`);
      void runStep(step, width).then((result) => {
        if (step.pool) inPool.set(step.pool, inPool.get(step.pool) - 1);
        results.push(result);
        ended.add(step.name);
        if (result.code === 0) passed.add(step.name);
        startReady();
      });
    }
    if (running.size === 0) resolve();
  };
  startReady();
});
// Steps in the order stages.mjs lists them, for a table that reads the same every run.
results.sort((a, b) => steps.findIndex((s) => s.name === a.name) - steps.findIndex((s) => s.name === b.name));
const skipped = steps.filter((step) => !ended.has(step.name)).map((step) => step.name);
if (skipped.length > 0) console.error(`test: not started (a step they run after failed): ${skipped.join(', ')}`);
const lines = table(results, (performance.now() - started) / 1000);
console.log(["test: times (wall; cpu = user + sys of the step's processes)", ...lines.map((line) => `test:   ${line}`)].join('\n'));
if (process.env.OJSKIT_TEST_TIMES) writeFileSync(process.env.OJSKIT_TEST_TIMES, `${lines.join('\n')}\n`);
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
if (failed.length > 0) {
  console.error(`test: FAILED: ${failed.join(', ')}`);
  process.exitCode = 1;
}
