/** Serving a gateway on a port with Node's HTTP server, and shutting it down gracefully. */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { serve } from '@hono/node-server';
import type { Gateway } from './gateway.js';
import { answerClientErrors } from './http/client-error.js';

export interface StartOptions {
  /** Port (0 picks a free one; default 8080). */
  port?: number;
  /** Interface to bind (default `127.0.0.1`: only this machine; pass `0.0.0.0` to serve the network). */
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
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: gateway.fetch, port: options.port ?? 8080, hostname: host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  answerClientErrors(server);
  const { port } = server.address() as AddressInfo;
  const tracker = trackConnections(server);
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
        tracker.closeWhenIdle();
      });
      await gateway.close();
    })();
    return stopping;
  };
  return { gateway, server, url: `http://${shownHost}:${port}`, port, shutdown };
}

/**
 * Per-socket count of requests in flight. Node's `closeIdleConnections` misses sockets that never carried a
 * request (clients pre-open them) and sockets that turn idle after the call, so shutdown tracks them itself:
 * idle sockets are ended at once, busy ones as soon as their last response is finished.
 */
function trackConnections(server: Server): { closeWhenIdle(): void } {
  const inFlight = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroySoon();
    });
  });
  return {
    closeWhenIdle() {
      closing = true;
      for (const [socket, count] of inFlight) if (count === 0) socket.destroySoon();
    },
  };
}
