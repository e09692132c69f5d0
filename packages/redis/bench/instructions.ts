/**
 * Redis instructions per job (issue 4), a yardstick that does not move with the machine's load: starts a
 * Redis of its own under valgrind's callgrind, then counts the instructions Redis executes for the claim
 * script alone, the batched-ACK script alone (50 jobs per call each) and a whole SDK-worker run. CPU-time
 * figures (`bench:breakdown`) swing by ±30 % between identical runs on a shared machine; these repeat to
 * about 2 %. Needs `valgrind` and `redis-server` on PATH; callgrind runs Redis ~50× slower, so keep
 * BENCH_JOBS small. Where the instructions go: BENCH_KEEP=<dir> keeps the three callgrind dumps there
 * (claim, ack, sdk) for `callgrind_annotate --inclusive=yes`.
 *
 * Usage: pnpm bench:instructions  (env: BENCH_JOBS=2000, BENCH_PORT=6399, BENCH_KEEP)
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { ojskitSystem } from './ojskit-system.js';
import { benchAckOp } from './ack-op.js';

const N = Number(process.env.BENCH_JOBS ?? 2_000);
const PORT = Number(process.env.BENCH_PORT ?? 6399);
const KEEP = process.env.BENCH_KEEP;
const BATCH = 50;
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), 'ojskit-callgrind-'));
const server = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.out')}`,
  'redis-server', '--port', String(PORT), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const url = `redis://127.0.0.1:${PORT}`;
// no reconnecting of its own: the loop below retries while valgrind starts Redis
const poke = new Redis(url, { retryStrategy: () => null, lazyConnect: true });
poke.on('error', () => {});

/** Stops our Redis and waits for it to exit (slow under valgrind), so a next run finds the port free. */
async function stopServer(): Promise<void> {
  poke.disconnect();
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill();
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}

async function connect(): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await poke.connect();
      break;
    } catch (error) {
      if (i === 100) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // a Redis already on the port would answer instead of ours
  if (!new RegExp(`^process_id:${server.pid}\\r?$`, 'm').test(await poke.info('server'))) {
    throw new Error(`port ${PORT} is taken by another Redis; set BENCH_PORT`);
  }
}

/**
 * Runs a callgrind_control command. Valgrind reads commands only while Redis executes, so Redis is kept
 * busy with PINGs until the command is answered (their instructions are ~1 % of a phase's).
 */
async function control(...args: string[]): Promise<void> {
  let done = false;
  const answered = run('callgrind_control', [...args, String(server.pid)]).finally(() => (done = true));
  while (!done) {
    await poke.ping();
    await new Promise((r) => setTimeout(r, 20));
  }
  await answered;
}

/** Instructions Redis executed while `fn` ran. */
async function count(name: string, fn: () => Promise<void>): Promise<number> {
  await control('--zero');
  await fn();
  await control('--dump');
  const file = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).at(-1)!;
  if (KEEP) copyFileSync(join(dir, file), join(KEEP, `${name}.callgrind`));
  const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
  return Number(totals?.[1] ?? NaN);
}

try {
  await connect();
  await measure();
} finally {
  await stopServer();
}

async function measure(): Promise<void> {
  const ojskit = ojskitSystem(url, `ojsinstr:${randomUUID().slice(0, 8)}`);
  const driver = ojskit.driver;
  try {
    await ojskit.bulk(200, 'warm');
    await ojskit.process(200, 'warm');
    await ojskit.bulk(N, 'alone');
    const claimed: Array<{ id: string; attempt: number }> = [];
    const claim = await count('claim', async () => {
      for (let i = 0; i < N; i += BATCH) {
        const now = Date.now();
        const result = await driver.jobClaim({ queues: ['alone'], limit: BATCH, workerId: 'bench', now, nowIso: new Date(now).toISOString() });
        for (const job of result.jobs) claimed.push({ id: job.id, attempt: job.attempt });
      }
    });
    const ack = await count('ack', async () => {
      for (let i = 0; i < claimed.length; i += BATCH) {
        const now = Date.now();
        const nowIso = new Date(now).toISOString();
        await driver.jobTransitionMany(claimed.slice(i, i + BATCH).map((job) => benchAckOp(job, 'bench', now, nowIso)));
      }
    });
    await ojskit.bulk(N, 'sdk');
    const sdk = await count('sdk', () => ojskit.process(N, 'sdk'));
    const k = (n: number) => (n / N / 1000).toFixed(1);
    console.log(`Redis instructions per job (thousands), ${N} jobs: job-claim alone ${k(claim)}, job-transition-many (ACK) alone ${k(ack)}, SDK worker run ${k(sdk)}`);
  } finally {
    await ojskit.close();
  }
}
