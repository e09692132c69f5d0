/** CLI configuration (flags, environment, defaults) and the backend registry. */
import { describe, expect, it } from 'vitest';
import { CLI_OPTIONS, parseByteSize, resolveConfig, usage } from '../src/cli/config.js';
import { backendScheme, createBackend, registerBackend } from '../src/index.js';
import { DEFAULT_BODY_LIMIT } from '../src/index.js';

const config = (argv: string[], env: Record<string, string> = {}) => {
  const resolved = resolveConfig(argv, env);
  if (!('config' in resolved)) throw new Error('expected a config');
  return resolved.config;
};

describe('CLI configuration', () => {
  it('has defaults for everything', () => {
    expect(config([])).toEqual({
      port: 8080,
      host: '127.0.0.1',
      backend: 'memory',
      apiKeys: [],
      corsOrigin: false,
      bodyLimit: DEFAULT_BODY_LIMIT,
      enableReset: false,
      staticDir: undefined,
      quiet: false,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('reads every setting from the environment, and flags win over it', () => {
    const env = {
      OJSKIT_PORT: '9000',
      OJSKIT_HOST: '127.0.0.1',
      OJSKIT_BACKEND: 'redis://localhost:6379',
      OJSKIT_API_KEY: 'a, b',
      OJSKIT_CORS_ORIGIN: 'http://a.test,http://b.test',
      OJSKIT_BODY_LIMIT: '512kb',
      OJSKIT_ENABLE_RESET: 'true',
      OJSKIT_STATIC_DIR: '/srv/playground',
      OJSKIT_QUIET: '1',
      OJSKIT_SHUTDOWN_TIMEOUT_MS: '2500',
    };
    expect(config([], env)).toEqual({
      port: 9000,
      host: '127.0.0.1',
      backend: 'redis://localhost:6379',
      apiKeys: ['a', 'b'],
      corsOrigin: ['http://a.test', 'http://b.test'],
      bodyLimit: 512 * 1024,
      enableReset: true,
      staticDir: '/srv/playground',
      quiet: true,
      shutdownTimeoutMs: 2500,
    });
    expect(config(['--port', '1234', '--backend', 'memory', '--cors-origin', 'off', '--body-limit', '1mb'], env)).toMatchObject({
      port: 1234,
      backend: 'memory',
      corsOrigin: false,
      bodyLimit: 1024 * 1024,
    });
    expect(config([], { PORT: '7000' }).port).toBe(7000);
  });

  it('rejects bad values and unknown flags', () => {
    expect(() => resolveConfig(['--port', '70000'], {})).toThrow(/port/);
    expect(() => resolveConfig(['--nope'], {})).toThrow();
    expect(() => resolveConfig([], { OJSKIT_QUIET: 'perhaps' })).toThrow(/OJSKIT_QUIET/);
    expect(() => parseByteSize('lots')).toThrow();
    expect(() => parseByteSize('0')).toThrow();
    expect(parseByteSize('1.5mb')).toBe(1.5 * 1024 * 1024);
    expect(parseByteSize('2048')).toBe(2048);
  });

  it('documents every option in --help', () => {
    expect(resolveConfig(['--help'], {})).toEqual({ help: true });
    expect(resolveConfig(['-v'], {})).toEqual({ version: true });
    for (const option of CLI_OPTIONS) expect(usage()).toContain(option.flag);
    // the short forms that work are listed next to their long ones
    for (const [long, short] of [
      ['--port', '-p'],
      ['--backend', '-b'],
      ['--quiet', '-q'],
      ['--help', '-h'],
      ['--version', '-v'],
    ]) {
      expect(usage()).toContain(`${long}, ${short}`);
    }
    expect(config(['-p', '9001', '-b', 'redis://h:1', '-q'])).toMatchObject({ port: 9001, backend: 'redis://h:1', quiet: true });
  });

  it("reads the flags after a leading '--' (what `pnpm start -- --backend …` passes on)", () => {
    const resolved = resolveConfig(['--', '--backend', 'redis://127.0.0.1:6379', '-p', '9001'], {});
    expect(resolved).toMatchObject({ config: { backend: 'redis://127.0.0.1:6379', port: 9001 } });
    expect(() => resolveConfig(['--', 'stray'], {})).toThrow();
  });

  it('names the nearest flag for an unknown one', () => {
    expect(() => resolveConfig(['--prot', '1'], {})).toThrow("Unknown option '--prot'. Did you mean '--port'?");
    expect(() => resolveConfig(['--backnd=memory'], {})).toThrow("Did you mean '--backend'?");
    expect(() => resolveConfig(['--cors'], {})).toThrow("Did you mean '--cors-origin'?");
    expect(() => resolveConfig(['--zzz'], {})).toThrow(/^Unknown option '--zzz'\. See --help/);
  });
});

describe('backend registry', () => {
  it('builds memory, and maps URL schemes', async () => {
    const driver = await createBackend('memory');
    expect(driver.name).toBe('memory');
    await driver.close();
    expect(backendScheme('postgres://u@h/db')).toBe('postgres');
    expect(backendScheme('REDIS://h')).toBe('redis');
    expect(backendScheme('memory')).toBe('memory');
  });

  it('names the supported backends for an unknown scheme, and accepts registered ones', async () => {
    await expect(createBackend('nats://x')).rejects.toThrow(/Unknown backend 'nats:\/\/x'.*memory.*redis:\/\/.*postgres:\/\//);
    registerBackend('test-mem', async () => createBackend('memory'));
    expect((await createBackend('test-mem://anything')).name).toBe('memory');
  });
});
