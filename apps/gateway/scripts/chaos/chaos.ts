/**
 * The chaos run (issue 25): N jobs through two gateway processes and several worker processes over a
 * private Redis (started here on a free port, never the shared one), while worker processes and gateways
 * are killed with SIGKILL at random and Redis itself is killed and restarted (AOF, fsync always). A ledger
 * the workers append to before each run proves afterwards that every job is terminal, none is lost,
 * attempts are consistent, and counts the jobs that ran more than once (at-least-once delivery).
 * Used by test/chaos.test.ts (short) and scripts/chaos/run.ts (long).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '@ojskit/core/formats';

export interface ChaosOptions {
  jobs: number;
  workers: number;
  /** How long the killing goes on, ms. */
  chaosMs: number;
  /** Mean time between kills, ms. */
  killEveryMs: number;
  /** Redis restarts during the chaos phase. */
  redisRestarts: number;
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
  kills: { workers: number; gateways: number; redis: number };
  seconds: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const gatewayRoot = join(here, '..', '..');
const QUEUE = 'chaos';

/** True when a `redis-server` binary is on the PATH. */
export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

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
  return spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', script, ...args], { cwd: gatewayRoot, stdio: ['ignore', 'ignore', 'ignore'] });
}

/** Runs the scenario; throws only when the harness itself fails (the report carries the verdict). */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'ojskit-chaos-'));
  const ledger = join(dir, 'ledger.txt');
  writeFileSync(ledger, '');
  const redisPort = await freePort();
  const gatewayPorts = [await freePort(), await freePort()];
  const backend = `redis://127.0.0.1:${redisPort}?prefix=chaos`;
  const children = new Set<ChildProcess>();
  const track = (child: ChildProcess): ChildProcess => {
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const kills = { workers: 0, gateways: 0, redis: 0 };

  let redis: ChildProcess | undefined;
  const startRedis = async (): Promise<void> => {
    redis = track(spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], { stdio: 'ignore' }));
    await until('redis', async () => spawnSync('redis-cli', ['-p', String(redisPort), 'ping']).stdout?.toString().includes('PONG') ?? false, 10_000);
  };
  const gateways: Array<ChildProcess | undefined> = [undefined, undefined];
  const startGateway = async (i: number): Promise<void> => {
    gateways[i] = track(tsxProcess('src/cli.ts', ['--port', String(gatewayPorts[i]), '--backend', backend, '--quiet']));
    await until(`gateway ${i}`, async () => (await fetch(`http://127.0.0.1:${gatewayPorts[i]}/ready`)).ok, 30_000);
  };
  const workers: ChildProcess[] = [];
  const startWorker = (i: number): void => {
    workers[i] = track(tsxProcess('scripts/chaos/worker.ts', [`http://127.0.0.1:${gatewayPorts[i % 2]}`, ledger, QUEUE]));
  };
  const api = (path: string, init?: RequestInit): Promise<Response> => fetch(`http://127.0.0.1:${gatewayPorts[0]}${path}`, init);

  try {
    await startRedis();
    await Promise.all([startGateway(0), startGateway(1)]);
    log(`redis :${redisPort}, gateways :${gatewayPorts.join(', :')}`);
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
          const status = await fetch(`http://127.0.0.1:${port}/ojs/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(job) }).then((r) => r.status, () => 0);
          if (status === 201 || status === 409) break;
          await sleep(100);
        }
      }
    };
    for (let i = 0; i < options.workers; i++) startWorker(i);
    log(`${options.workers} workers started; ${options.jobs} jobs enqueued across the chaos`);

    const chaosEnd = Date.now() + options.chaosMs;
    const producer = (async () => {
      const batches = Math.ceil(options.jobs / 20);
      for (let b = 0; b < batches; b++) {
        await enqueue(b * 20, Math.min(20, options.jobs - b * 20));
        await sleep(Math.max(0, (chaosEnd - Date.now()) / (batches - b)));
      }
    })();
    const redisAt = Array.from({ length: options.redisRestarts }, (_, i) => Date.now() + ((i + 1) * options.chaosMs) / (options.redisRestarts + 1));
    while (Date.now() < chaosEnd) {
      await sleep(options.killEveryMs * (0.5 + Math.random()));
      if (redisAt.length > 0 && Date.now() >= redisAt[0]!) {
        redisAt.shift();
        redis?.kill('SIGKILL');
        kills.redis++;
        await sleep(300);
        await startRedis();
        log('redis killed and restarted');
        continue;
      }
      if (Math.random() < 0.2) {
        const i = Math.floor(Math.random() * 2);
        gateways[i]?.kill('SIGKILL');
        kills.gateways++;
        await sleep(200);
        await startGateway(i);
        log(`gateway ${i} killed and restarted`);
      } else {
        const i = Math.floor(Math.random() * options.workers);
        workers[i]?.kill('SIGKILL');
        kills.workers++;
        startWorker(i);
      }
    }
    // A slow restart can run the clock out: the Redis restarts asked for still happen.
    for (; redisAt.length > 0; redisAt.shift()) {
      redis?.kill('SIGKILL');
      kills.redis++;
      await sleep(300);
      await startRedis();
      log('redis killed and restarted');
    }
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
    const report: ChaosReport = { jobs: ids.length, terminal: 0, completed: 0, lost: 0, neverRan: 0, ranMoreThanOnce: 0, maxRuns: 0, attemptMismatches: 0, kills, seconds: 0 };
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
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A printable table of a report. */
export function formatReport(backend: string, r: ChaosReport): string {
  return [
    `backend   jobs  terminal  completed  lost  never-ran  ran>1  max-runs  attempt-mismatch  kills(w/g/redis)  seconds`,
    `${backend.padEnd(9)} ${String(r.jobs).padStart(4)}  ${String(r.terminal).padStart(8)}  ${String(r.completed).padStart(9)}  ${String(r.lost).padStart(4)}  ${String(r.neverRan).padStart(9)}  ${String(r.ranMoreThanOnce).padStart(5)}  ${String(r.maxRuns).padStart(8)}  ${String(r.attemptMismatches).padStart(16)}  ${`${r.kills.workers}/${r.kills.gateways}/${r.kills.redis}`.padStart(16)}  ${String(r.seconds).padStart(7)}`,
  ].join('\n');
}
