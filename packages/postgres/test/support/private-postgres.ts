/**
 * A throwaway PostgreSQL cluster (initdb in a temporary directory, its own port) for fault tests that
 * restart or crash the server: the shared database other packages' tests use is never touched.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian/Ubuntu put the server binaries; PG_BIN overrides. */
function binDir(): string | undefined {
  if (process.env['PG_BIN']) return process.env['PG_BIN'];
  for (const version of ['17', '16', '15', '14']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return undefined;
}

const BIN = binDir();
const AS_ROOT = process.getuid?.() === 0;

/** Why a private cluster cannot run here, or undefined when it can. */
export const privatePostgresUnavailable: string | undefined =
  BIN === undefined ? 'initdb/pg_ctl not found (set PG_BIN)' : AS_ROOT && !existsSync('/usr/sbin/runuser') ? 'running as root without runuser' : undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class PrivatePostgres {
  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** Connection URL of the cluster's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** initdb + start (a second or two). */
  static async start(): Promise<PrivatePostgres> {
    if (privatePostgresUnavailable) throw new Error(privatePostgresUnavailable);
    const dir = await mkdtemp(join(tmpdir(), 'ojskit-pg-'));
    if (AS_ROOT) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const cluster = new PrivatePostgres(dir, await freePort());
    await cluster.pg('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
    await cluster.start();
    return cluster;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=40`;
    await this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-l', join(this.dir, 'log'), '-o', options, '-w', '-t', '30', 'start']);
  }

  /** `fast`: clean shutdown (what a restart does); `immediate`: a crash, recovered from the WAL on start. */
  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', '-t', '30', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }

  private async pg(tool: string, args: string[]): Promise<void> {
    const path = join(BIN!, tool);
    if (AS_ROOT) await run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: this.dir });
    else await run(path, args, { cwd: this.dir });
  }
}
