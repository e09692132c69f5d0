/**
 * A real gateway process (the CLI, from source) serving the built playground, on a free port. Its stdout's
 * `listening` line gives the URL; `stop()` sends SIGTERM and waits for the exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PLAYGROUND_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const GATEWAY_CLI = fileURLToPath(new URL('../../../gateway/src/cli.ts', import.meta.url));

export interface RunningGateway {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startGateway(args: readonly string[] = ['--backend', 'memory']): Promise<RunningGateway> {
  if (!existsSync(`${PLAYGROUND_DIST}index.html`))
    throw new Error(`No built playground at ${PLAYGROUND_DIST}: run \`pnpm --filter @ojskit/playground build\` first.`);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@ojskit/source', GATEWAY_CLI, '--port', '0', '--host', '127.0.0.1', '--quiet', '--static-dir', PLAYGROUND_DIST, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OJSKIT_QUIET: 'true' } },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 30 s: ${stderr}`)), 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string; port?: number };
        if (entry.msg === 'listening' && entry.port) {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${entry.port}`);
        }
      } catch {
        // Non-JSON output is not the line we wait for.
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
