/**
 * A private redis-server per test file, for tests that would disturb the shared one (flushing the script
 * cache, changing the eviction policy, killing the server). Needs `redis-server` on PATH (CI installs Redis).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const redisServerAvailable: boolean = (() => {
  const ok = spawnSync('redis-server', ['--version']).status === 0;
  if (!ok && process.env.CI === 'true') throw new Error('redis-server is not on PATH (CI=true requires it)');
  return ok;
})();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export class PrivateRedis {
  private child: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[],
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts a server (no RDB snapshots; extra args such as `--appendonly yes`). */
  static async start(args: string[] = []): Promise<PrivateRedis> {
    const server = new PrivateRedis(await freePort(), mkdtempSync(join(tmpdir(), 'ojs-redis-')), args);
    await server.launch();
    return server;
  }

  async launch(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--dir', this.dir, ...this.args], {
      stdio: 'ignore',
    });
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    const end = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch (error) {
        probe.disconnect();
        if (Date.now() > end) throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** SIGKILL: the server dies without a chance to save anything. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
