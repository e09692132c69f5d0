/** Serving a gateway on a port with Node's HTTP server, and shutting it down gracefully. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Gateway } from './gateway.js';

export interface StartOptions {
  /** Port (0 picks a free one; default 8080). */
  port?: number;
  /** Interface to bind (default `0.0.0.0`). */
  host?: string;
  /** How long in-flight requests may take to finish on shutdown before connections are cut (default 10 000 ms). */
  shutdownTimeoutMs?: number;
}

export interface RunningGateway {
  gateway: Gateway;
  server: Server;
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  /**
   * Graceful shutdown: stop handing out work (FETCH returns no jobs, `/ready` 503, event streams end), stop
   * accepting connections and let in-flight requests finish, then stop background services and close the
   * backend. Idempotent.
   */
  shutdown(): Promise<void>;
}

/**
 * Listens on a port.
 * @example
 * const running = await startGateway(createGateway({ backend: new MemoryDriver() }), { port: 8080 });
 * process.on('SIGTERM', () => void running.shutdown());
 */
export async function startGateway(gateway: Gateway, options: StartOptions = {}): Promise<RunningGateway> {
  const host = options.host ?? '0.0.0.0';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: gateway.fetch, port: options.port ?? 8080, hostname: host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      gateway.drain();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, options.shutdownTimeoutMs ?? 10_000);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Keep-alive connections with no request in flight would hold `close` open.
        server.closeIdleConnections();
      });
      await gateway.close();
    })();
    return stopping;
  };
  return { gateway, server, url: `http://${shownHost}:${port}`, port, shutdown };
}
