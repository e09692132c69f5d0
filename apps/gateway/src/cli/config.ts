/** The CLI's configuration: flags, each with an environment variable, flags winning. */
import { parseArgs } from 'node:util';
import { nearestName } from '@ojskit/core/formats';
import { DEFAULT_BODY_LIMIT } from '../options.js';

export interface CliConfig {
  port: number;
  host: string;
  backend: string;
  apiKeys: string[];
  /** `'*'`, a list of origins, or `false` (no CORS headers). */
  corsOrigin: string | string[] | false;
  bodyLimit: number;
  enableReset: boolean;
  staticDir: string | undefined;
  quiet: boolean;
  shutdownTimeoutMs: number;
}

/** Every option: flag, environment variable, default, description (the README table mirrors this). */
export const CLI_OPTIONS = [
  { flag: '--port', short: '-p', env: 'OJSKIT_PORT (or PORT)', default: '8080', description: 'Port to listen on (0 = any free port).' },
  { flag: '--host', env: 'OJSKIT_HOST', default: '127.0.0.1', description: 'Interface to bind (0.0.0.0 for every interface: set an API key).' },
  { flag: '--backend', short: '-b', env: 'OJSKIT_BACKEND', default: 'memory', description: 'memory, redis://…, postgres://…, kafka://…' },
  { flag: '--api-key', env: 'OJSKIT_API_KEY', default: '(none: no auth)', description: 'Bearer token required on /ojs/* (comma-separated for several).' },
  {
    flag: '--cors-origin',
    env: 'OJSKIT_CORS_ORIGIN',
    default: 'off',
    description: "Allowed browser origins, comma-separated, or '*'; 'off' sends no CORS headers.",
  },
  { flag: '--body-limit', env: 'OJSKIT_BODY_LIMIT', default: '8mb', description: 'Largest request body: bytes, or with kb/mb.' },
  { flag: '--enable-reset', env: 'OJSKIT_ENABLE_RESET', default: 'false', description: 'Serve POST /ojs/v1/admin/reset (wipes all state).' },
  { flag: '--static-dir', env: 'OJSKIT_STATIC_DIR', default: '(none)', description: 'Serve a built single-page app (the playground) at /.' },
  { flag: '--quiet', short: '-q', env: 'OJSKIT_QUIET', default: 'false', description: 'No per-request log lines.' },
  { flag: '--shutdown-timeout', env: 'OJSKIT_SHUTDOWN_TIMEOUT_MS', default: '10000', description: 'Milliseconds in-flight requests get on shutdown.' },
] as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `8388608`, `512kb`, `8mb`, `1gb`. */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?\s*$/i.exec(text);
  if (!match) throw new UsageError(`Invalid size '${text}': use bytes or a number with kb/mb/gb.`);
  const unit = (match[2] ?? 'b').toLowerCase()[0]!;
  const factor = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  const bytes = Math.floor(Number(match[1]) * factor);
  if (bytes <= 0) throw new UsageError(`Invalid size '${text}': must be positive.`);
  return bytes;
}

function parseBool(text: string | undefined, name: string): boolean {
  if (text === undefined || text === '') return false;
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new UsageError(`Invalid ${name} '${text}': use true or false.`);
}

function parseInteger(text: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`Invalid ${name} '${text}': expected an integer.`);
  const value = Number(text);
  if (value < min || value > max) throw new UsageError(`Invalid ${name} '${text}': expected ${min}..${max}.`);
  return value;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      backend: { type: 'string', short: 'b' },
      'api-key': { type: 'string' },
      'cors-origin': { type: 'string' },
      'body-limit': { type: 'string' },
      'enable-reset': { type: 'boolean' },
      'static-dir': { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      'shutdown-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** Every flag name, long and short, `--help`/`--version` included. */
const FLAG_NAMES = [...CLI_OPTIONS.flatMap((o) => ('short' in o ? [o.flag, o.short] : [o.flag])), '--help', '-h', '--version', '-v'];

/** node:util's parse error for an unknown flag, turned into one that names the nearest flag. */
function unknownFlag(error: unknown): Error {
  const flag = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec((error as Error).message)?.[1] : undefined;
  if (flag === undefined) return error as Error;
  const near = nearestName(
    flag.split('=')[0]!,
    FLAG_NAMES.filter((name) => name.startsWith('--')),
  );
  return new UsageError(`Unknown option '${flag}'.${near ? ` Did you mean '${near}'?` : ''} See --help for the options.`);
}

/** Resolves the configuration; `help`/`version` short-circuit. Throws `UsageError` on bad input. */
export function resolveConfig(argv: readonly string[], env: NodeJS.ProcessEnv): { help: true } | { version: true } | { config: CliConfig } {
  let parsed: ReturnType<typeof parse>;
  try {
    // `pnpm start -- --backend …` hands the separator on to the script (pnpm 10): flags after it are still ours.
    parsed = parse(argv[0] === '--' ? argv.slice(1) : argv);
  } catch (error) {
    throw unknownFlag(error);
  }
  const { values } = parsed;
  if (values.help) return { help: true };
  if (values.version) return { version: true };
  const cors = values['cors-origin'] ?? env['OJSKIT_CORS_ORIGIN'] ?? 'off';
  const apiKey = values['api-key'] ?? env['OJSKIT_API_KEY'];
  return {
    config: {
      port: parseInteger(values.port ?? env['OJSKIT_PORT'] ?? env['PORT'] ?? '8080', 'port', 0, 65_535),
      host: values.host ?? env['OJSKIT_HOST'] ?? '127.0.0.1',
      backend: values.backend ?? env['OJSKIT_BACKEND'] ?? 'memory',
      apiKeys: apiKey ? list(apiKey) : [],
      corsOrigin: /^(off|false|none)$/i.test(cors) ? false : cors.trim() === '*' ? '*' : list(cors),
      bodyLimit: (values['body-limit'] ?? env['OJSKIT_BODY_LIMIT']) ? parseByteSize((values['body-limit'] ?? env['OJSKIT_BODY_LIMIT'])!) : DEFAULT_BODY_LIMIT,
      enableReset: values['enable-reset'] ?? parseBool(env['OJSKIT_ENABLE_RESET'], 'OJSKIT_ENABLE_RESET'),
      staticDir: values['static-dir'] ?? (env['OJSKIT_STATIC_DIR'] || undefined),
      quiet: values.quiet ?? parseBool(env['OJSKIT_QUIET'], 'OJSKIT_QUIET'),
      shutdownTimeoutMs: parseInteger(values['shutdown-timeout'] ?? env['OJSKIT_SHUTDOWN_TIMEOUT_MS'] ?? '10000', 'shutdown timeout', 0, 3_600_000),
    },
  };
}

/** `--help` text. */
export function usage(): string {
  const rows = CLI_OPTIONS.map(
    (o) => `  ${('short' in o ? `${o.flag}, ${o.short}` : o.flag).padEnd(20)} ${o.description}\n  ${''.padEnd(20)} env ${o.env}, default ${o.default}`,
  );
  return `Usage: ojskit-gateway [options]\n\nServes the Open Job Spec HTTP API (levels 0–4) over an ojskit backend.\n\nOptions:\n${rows.join('\n')}\n  --help, -h           This text.\n  --version, -v        The gateway version.\n`;
}
