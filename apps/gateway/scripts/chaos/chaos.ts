/**
 * The chaos run (issue 25): N jobs through two gateway processes and several worker processes (over HTTP,
 * and in-process ones running the engine on the store themselves) over a private Redis or PostgreSQL
 * (started here on a free port, never the shared ones), while worker processes and gateways are killed
 * with SIGKILL at random and the store itself is killed and restarted (stores.ts). A ledger
 * the workers append to before each run proves afterwards that every job is terminal, none is lost,
 * attempts are consistent, and counts the jobs that ran more than once (at-least-once delivery).
 * Used by test/chaos.test.ts (short) and scripts/chaos/run.ts (long).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '@ojskit/core/formats';
import { postgresStore, redisStore, storeAvailable, type ChaosStore } from './stores.js';

export interface ChaosOptions {
  /** The store (default redis). */
  backend?: 'redis' | 'postgres';
  jobs: number;
  /** Worker processes over HTTP, each on one of the two gateways. */
  workers: number;
  /** Worker processes running the engine in-process on the store (default 0). */
  inProcessWorkers?: number;
  /** How long the killing goes on, ms. */
  chaosMs: number;
  /** Mean time between kills, ms. */
  killEveryMs: number;
  /** Store restarts (kill, then start again) during the chaos phase. */
  storeRestarts: number;
  /** How long jobs may take to settle after the chaos, ms. */
  settleMs: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  jobs: number;
  terminal: number;
  completed: number;
  lost: number;
  neverRan: number;
  ranMoreThanOnce: number;
  maxRuns: number;
  attemptMismatches: number;
  kills: { workers: number; inProcessWorkers: number; gateways: number; store: number };
  seconds: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const gatewayRoot = join(here, '..', '..');
const QUEUE = 'chaos';

export { storeAvailable };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function tsxProcess(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', script, ...args], {
    cwd: gatewayRoot,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
}

/**
 * A gateway process: the built CLI when the build step has run (OJSKIT_BUILT, set by `pnpm test`), else the
 * sources through tsx. The run restarts gateways again and again, and each tsx start spends seconds of CPU
 * transpiling, which on a loaded machine stretched a restart past a minute.
 */
function gatewayProcess(args: string[]): ChildProcess {
  const built = join(gatewayRoot, 'dist', 'cli.js');
  if (!process.env['OJSKIT_BUILT'] || !existsSync(built)) return tsxProcess('src/cli.ts', args);
  return spawn(process.execPath, [built, ...args], { cwd: gatewayRoot, stdio: ['ignore', 'ignore', 'ignore'] });
}

/** Runs the scenario; throws only when the harness itself fails (the report carries the verdict). */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'ojskit-chaos-'));
  const ledger = join(dir, 'ledger.txt');
  writeFileSync(ledger, '');
  const storePort = await freePort();
  const gatewayPorts = [await freePort(), await freePort()];
  const store: ChaosStore = options.backend === 'postgres' ? postgresStore(storePort) : redisStore(storePort, dir);
  const backend = store.url;
  const children = new Set<ChildProcess>();
  const track = (child: ChildProcess): ChildProcess => {
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const kills = { workers: 0, inProcessWorkers: 0, gateways: 0, store: 0 };
  const restartStore = async (): Promise<void> => {
    await store.kill();
    kills.store++;
    await store.start();
    log(`${store.name} killed and restarted`);
  };
  const gateways: Array<ChildProcess | undefined> = [undefined, undefined];
  const startGateway = async (i: number): Promise<void> => {
    gateways[i] = track(gatewayProcess(['--port', String(gatewayPorts[i]), '--backend', backend, '--quiet']));
    await until(`gateway ${i}`, async () => (await fetch(`http://127.0.0.1:${gatewayPorts[i]}/ready`)).ok, 90_000);
  };
  const workers: ChildProcess[] = [];
  const startWorker = (i: number): void => {
    workers[i] = track(tsxProcess('scripts/chaos/worker.ts', [`http://127.0.0.1:${gatewayPorts[i % 2]}`, ledger, QUEUE]));
  };
  const inProcess: ChildProcess[] = [];
  const startInProcess = (i: number): void => {
    inProcess[i] = track(tsxProcess('scripts/chaos/worker-in-process.ts', [backend, ledger, QUEUE]));
  };
  const inProcessCount = options.inProcessWorkers ?? 0;
  const api = (path: string, init?: RequestInit): Promise<Response> => fetch(`http://127.0.0.1:${gatewayPorts[0]}${path}`, init);

  try {
    await store.start();
    // One after the other: the first migrates a new PostgreSQL schema.
    await startGateway(0);
    await startGateway(1);
    log(`${store.name} :${storePort}, gateways :${gatewayPorts.join(', :')}`);
    const ids: string[] = [];
    /** Enqueues one batch with client ids, through either gateway, until it is stored (a retry after a lost answer is a 409). */
    const enqueue = async (first: number, n: number): Promise<void> => {
      const jobs = Array.from({ length: n }, (_, i) => ({
        id: newId(),
        type: 'chaos.job',
        args: [first + i],
        options: { queue: QUEUE, visibility_timeout_ms: 2_000, retry: { max_attempts: 25, initial_interval: 'PT0.1S', max_interval: 'PT0.5S' } },
      }));
      ids.push(...jobs.map((j) => j.id));
      for (const job of jobs) {
        for (let tries = 0; ; tries++) {
          const port = gatewayPorts[tries % 2];
          const status = await fetch(`http://127.0.0.1:${port}/ojs/v1/jobs`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(job),
          }).then(
            (r) => r.status,
            () => 0,
          );
          if (status === 201 || status === 409) break;
          await sleep(100);
        }
      }
    };
    for (let i = 0; i < options.workers; i++) startWorker(i);
    for (let i = 0; i < inProcessCount; i++) startInProcess(i);
    log(`${options.workers} HTTP and ${inProcessCount} in-process workers started; ${options.jobs} jobs enqueued across the chaos`);

    const chaosEnd = Date.now() + options.chaosMs;
    const producer = (async () => {
      const batches = Math.ceil(options.jobs / 20);
      for (let b = 0; b < batches; b++) {
        await enqueue(b * 20, Math.min(20, options.jobs - b * 20));
        await sleep(Math.max(0, (chaosEnd - Date.now()) / (batches - b)));
      }
    })();
    const storeAt = Array.from({ length: options.storeRestarts }, (_, i) => Date.now() + ((i + 1) * options.chaosMs) / (options.storeRestarts + 1));
    while (Date.now() < chaosEnd) {
      await sleep(options.killEveryMs * (0.5 + Math.random()));
      if (storeAt.length > 0 && Date.now() >= storeAt[0]!) {
        storeAt.shift();
        await restartStore();
        continue;
      }
      const dice = Math.random();
      if (dice < 0.2) {
        const i = Math.floor(Math.random() * 2);
        gateways[i]?.kill('SIGKILL');
        kills.gateways++;
        await sleep(200);
        await startGateway(i);
        log(`gateway ${i} killed and restarted`);
      } else if (inProcessCount > 0 && dice < 0.5) {
        const i = Math.floor(Math.random() * inProcessCount);
        inProcess[i]?.kill('SIGKILL');
        kills.inProcessWorkers++;
        startInProcess(i);
      } else {
        const i = Math.floor(Math.random() * options.workers);
        workers[i]?.kill('SIGKILL');
        kills.workers++;
        startWorker(i);
      }
    }
    // A slow restart can run the clock out: the store restarts asked for still happen.
    for (; storeAt.length > 0; storeAt.shift()) await restartStore();
    await producer;
    log('chaos over; settling');

    const settled = async (): Promise<boolean> => {
      const stats = (await (await api(`/ojs/v1/queues/${QUEUE}/stats`)).json()) as Record<string, number>;
      return stats['completed']! + stats['discarded']! + stats['cancelled']! >= ids.length;
    };
    await until('every job terminal', settled, options.settleMs).catch(() => undefined);

    const runs = new Map<string, number[]>();
    for (const line of readFileSync(ledger, 'utf8').split('\n')) {
      if (!line) continue;
      const [id, attempt] = line.split(' ');
      runs.set(id!, [...(runs.get(id!) ?? []), Number(attempt)]);
    }
    const report: ChaosReport = {
      jobs: ids.length,
      terminal: 0,
      completed: 0,
      lost: 0,
      neverRan: 0,
      ranMoreThanOnce: 0,
      maxRuns: 0,
      attemptMismatches: 0,
      kills,
      seconds: 0,
    };
    for (const id of ids) {
      const res = await api(`/ojs/v1/jobs/${id}`);
      if (res.status === 404) {
        report.lost++;
        continue;
      }
      const { job } = (await res.json()) as { job: { state: string; attempt: number } };
      if (['completed', 'discarded', 'cancelled'].includes(job.state)) report.terminal++;
      if (job.state === 'completed') report.completed++;
      const ran = runs.get(id) ?? [];
      if (ran.length === 0) report.neverRan++;
      if (ran.length > 1) report.ranMoreThanOnce++;
      report.maxRuns = Math.max(report.maxRuns, ran.length);
      // Every run was an attempt the store handed out: none above the job's last attempt.
      if (ran.some((a) => a > job.attempt)) report.attemptMismatches++;
    }
    report.seconds = Math.round((performance.now() - started) / 100) / 10;
    return report;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await store.destroy();
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A printable table of a report. */
export function formatReport(backend: string, r: ChaosReport): string {
  return [
    `backend   jobs  terminal  completed  lost  never-ran  ran>1  max-runs  attempt-mismatch  kills(http-w/in-proc-w/gw/store)  seconds`,
    `${backend.padEnd(9)} ${String(r.jobs).padStart(4)}  ${String(r.terminal).padStart(8)}  ${String(r.completed).padStart(9)}  ${String(r.lost).padStart(4)}  ${String(r.neverRan).padStart(9)}  ${String(r.ranMoreThanOnce).padStart(5)}  ${String(r.maxRuns).padStart(8)}  ${String(r.attemptMismatches).padStart(16)}  ${`${r.kills.workers}/${r.kills.inProcessWorkers}/${r.kills.gateways}/${r.kills.store}`.padStart(32)}  ${String(r.seconds).padStart(7)}`,
  ].join('\n');
}
