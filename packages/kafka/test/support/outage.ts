/**
 * Test support for store outages: a TCP proxy the test cuts and restores (PostgreSQL: the shared server is never
 * stopped), and a private redis-server on a port of its own that the test stops and starts again with its data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './faults.js';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Forwards 127.0.0.1:`port` to a target; `cut()` drops every connection and refuses new ones until `restore()`. */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  /** Listens again (after `cut`). */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Drops every open connection (both ways) and stops accepting: the store is unreachable. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}

/** A redis-server of the test's own (no periodic saves), stopped with SHUTDOWN SAVE and started again on its data. */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'ojskit-kafka-redis-'));

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.up();
    return redis;
  }

  /** Starts the server (again), loading what the last stop saved. */
  async up(): Promise<void> {
    if (this.child) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    await waitUntil(`redis-server on ${this.port} to answer`, () => this.cli('PING').then((r) => r === 'PONG'), 15_000, 100);
  }

  /** Saves and stops the server: connections drop and new ones are refused until `up()`. */
  async down(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await this.cli('SHUTDOWN', 'SAVE').catch(() => {});
    await exited;
    this.child = null;
  }

  /** Stops the server without saving and removes its directory. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    this.child = null;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private cli(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const p = spawn('redis-cli', ['-p', String(this.port), ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.once('error', reject);
      p.once('exit', () => resolve(out.trim()));
    });
  }
}
