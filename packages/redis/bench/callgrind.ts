/**
 * A Redis of the bench's own under valgrind's callgrind, for instruction counts (`bench:instructions`,
 * `BENCH_CALLGRIND=1 bench:layouts`): a yardstick that does not move with the machine's load. Needs `valgrind`
 * and `redis-server` on PATH; callgrind runs Redis ~50× slower.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

export interface CallgrindRedis {
  url: string;
  /** Instructions Redis executed while `fn` ran; with `keep`, the dump is copied to `<keep>/<name>.callgrind`. */
  count(name: string, fn: () => Promise<void>): Promise<number>;
  /** Stops the Redis and waits for it to exit (slow under valgrind), so a next run finds the port free. */
  stop(): Promise<void>;
}

export async function startCallgrindRedis(port: number, keep?: string): Promise<CallgrindRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ojskit-callgrind-'));
  // made up front: a missing one would fail only after the first (slow) measurement
  if (keep) mkdirSync(keep, { recursive: true });
  const server = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.out')}`, 'redis-server', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  // no reconnecting of its own: the loop below retries while valgrind starts Redis
  const poke = new Redis(url, { retryStrategy: () => null, lazyConnect: true });
  poke.on('error', () => {});

  async function stop(): Promise<void> {
    poke.disconnect();
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
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

  async function count(name: string, fn: () => Promise<void>): Promise<number> {
    await control('--zero');
    await fn();
    await control('--dump');
    const file = readdirSync(dir)
      .filter((f) => /^cg\.out\.\d+$/.test(f))
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
      .at(-1)!;
    if (keep) copyFileSync(join(dir, file), join(keep, `${name}.callgrind`));
    const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
    return Number(totals?.[1] ?? NaN);
  }

  try {
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
      throw new Error(`port ${port} is taken by another Redis; set BENCH_PORT`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, count, stop };
}
