/**
 * The stores a chaos run kills and restarts, each a private server the run starts itself on a free port
 * (never the shared ones): Redis (AOF, fsync always) and a PostgreSQL cluster (initdb in the run's
 * directory; as root, its tools run as the `postgres` user through runuser).
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A store server the run can start, kill with SIGKILL, and start again on the same port and data. */
export interface ChaosStore {
  readonly name: 'redis' | 'postgres';
  /** The `--backend` URL gateways and in-process workers open. */
  readonly url: string;
  start(): Promise<void>;
  /** SIGKILL: no clean shutdown (Redis replays its AOF, PostgreSQL its WAL). */
  kill(): Promise<void>;
  /** Kills the server and deletes what it wrote outside the run's directory. */
  destroy(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether this machine can run a private store of that kind (binaries on the PATH, runuser as root). */
export function storeAvailable(name: 'redis' | 'postgres'): boolean {
  if (name === 'redis') return spawnSync('redis-server', ['--version']).status === 0;
  return pgBin() !== undefined && (process.getuid?.() !== 0 || existsSync('/usr/sbin/runuser'));
}

/** A private redis-server. */
export function redisStore(port: number, dir: string): ChaosStore {
  let child: ChildProcess | undefined;
  return {
    name: 'redis',
    url: `redis://127.0.0.1:${port}?prefix=chaos`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
        { stdio: 'ignore' },
      );
      const deadline = Date.now() + 10_000;
      while (!(
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .includes('PONG') ?? false
      )) {
        if (Date.now() > deadline) throw new Error('redis-server did not start');
        await sleep(100);
      }
    },
    async kill() {
      child?.kill('SIGKILL');
      await sleep(300);
    },
    async destroy() {
      await this.kill();
    },
  };
}

/** Where the PostgreSQL server binaries are (PG_BIN, or the PATH's initdb). */
function pgBin(): string | undefined {
  if (process.env['PG_BIN']) return process.env['PG_BIN'];
  const found = spawnSync('sh', ['-c', 'command -v initdb']).stdout?.toString().trim();
  if (found) return join(found, '..');
  for (const version of ['17', '16', '15', '14']) if (existsSync(`/usr/lib/postgresql/${version}/bin/initdb`)) return `/usr/lib/postgresql/${version}/bin`;
  return undefined;
}

/** A private PostgreSQL cluster, created on first start. */
export function postgresStore(port: number): ChaosStore {
  // Directly under /tmp: the server runs as `postgres`, which cannot enter a test runner's private temp dir.
  const home = mkdtempSync('/tmp/ojskit-chaos-pg-');
  const data = join(home, 'data');
  const asRoot = process.getuid?.() === 0;
  const tool = async (name: string, args: string[]): Promise<void> => {
    const path = join(pgBin()!, name);
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: home });
    else await run(path, args, { cwd: home });
  };
  return {
    name: 'postgres',
    url: `postgres://postgres@127.0.0.1:${port}/postgres?schema=chaos`,
    async start() {
      if (!existsSync(data)) {
        if (asRoot) {
          const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
          chownSync(home, id('-u'), id('-g'));
        }
        await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
      }
      const options = `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=100`;
      await tool('pg_ctl', ['-D', data, '-l', join(home, 'log'), '-o', options, '-w', '-t', '60', 'start']);
    },
    async kill() {
      // pg_ctl's immediate stop is the SIGQUIT a crash test uses: no checkpoint, recovery from the WAL at start.
      await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
    },
    async destroy() {
      await this.kill();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
