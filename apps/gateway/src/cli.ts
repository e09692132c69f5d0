#!/usr/bin/env node
/** `ojskit-gateway`: serve the OJS HTTP API over a backend, with graceful shutdown on SIGINT/SIGTERM. */
import { createBackend } from './backends/registry.js';
import { resolveConfig, usage } from './cli/config.js';
import { exposureWarning } from './cli/exposure.js';
import { createGateway } from './gateway.js';
import { startGateway } from './server.js';
import { GATEWAY_VERSION } from './version.js';

function log(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', ...fields })}\n`);
}

async function main(): Promise<void> {
  let resolved: ReturnType<typeof resolveConfig>;
  try {
    resolved = resolveConfig(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`ojskit-gateway: ${(error as Error).message}\n\n${usage()}`);
    process.exit(2);
  }
  if ('help' in resolved) {
    process.stdout.write(usage());
    return;
  }
  if ('version' in resolved) {
    process.stdout.write(`${GATEWAY_VERSION}\n`);
    return;
  }
  const config = resolved.config;
  const backend = await createBackend(config.backend);
  const gateway = createGateway({
    backend,
    bodyLimit: config.bodyLimit,
    corsOrigin: config.corsOrigin,
    enableReset: config.enableReset,
    ...(config.apiKeys.length > 0 ? { apiKey: config.apiKeys } : {}),
    ...(config.staticDir ? { staticDir: config.staticDir } : {}),
    ...(config.quiet ? { logger: false as const } : {}),
    engineOptions: { implementation: { name: 'ojskit-gateway', version: GATEWAY_VERSION, homepage: 'https://github.com/ojskit/ojskit' } },
  });
  // A transport that subscribes in the background (Redis: its stream reader) is reading before the gateway says it
  // listens: an SSE client connecting right after start-up then sees other processes' events.
  await (backend.events as { ready?: () => Promise<void> } | undefined)?.ready?.();
  const running = await startGateway(gateway, { port: config.port, host: config.host, shutdownTimeoutMs: config.shutdownTimeoutMs }).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${config.port} on ${config.host} is already in use (another gateway still running?). Stop that process, or choose another port: --port N, OJSKIT_PORT=N or PORT=N (0 picks a free one).`,
      { cause: error },
    );
  });
  log({ msg: 'listening', url: running.url, port: running.port, backend: backend.name, auth: config.apiKeys.length > 0, version: GATEWAY_VERSION });
  // For the person who just ran it: a URL a terminal makes clickable (stdout stays JSON lines for log shippers).
  process.stderr.write(
    `ojskit-gateway: ready at ${running.url}/ (${backend.name} backend; API under ${running.url}/ojs/v1, reference at ${running.url}/ojs/v1/docs)\n`,
  );
  const exposed = exposureWarning(config);
  if (exposed) process.stderr.write(`\n  ${exposed}\n\n`);

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      log({ msg: 'forced exit', signal });
      process.exit(1);
    }
    log({ msg: 'shutting down', signal });
    running.shutdown().then(
      () => {
        log({ msg: 'stopped' });
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`ojskit-gateway: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

main().catch((error: unknown) => {
  // Start-up failures (bad backend URL, adapter not installed, port in use) are the operator's to fix: the
  // message says what; the stack only with OJSKIT_DEBUG.
  const detail = error instanceof Error ? (process.env['OJSKIT_DEBUG'] ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`ojskit-gateway: ${detail}\n`);
  process.exit(1);
});
