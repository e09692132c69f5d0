/**
 * Backend factories by URL scheme: `memory`, `redis://`, `postgres://`, `kafka://`. Adapters are imported
 * only when asked for, so the gateway runs without the ones it does not use; a missing adapter package is a
 * clear error naming what to install.
 */
import type { Driver } from '@ojskit/core/driver';

/** Builds a driver from the backend spec (`memory`, or a URL). */
export type BackendFactory = (spec: string) => Promise<Driver>;

const factories = new Map<string, BackendFactory>();

/** Registers (or replaces) the factory for a URL scheme, e.g. `registerBackend('nats', …)`. */
export function registerBackend(scheme: string, factory: BackendFactory): void {
  factories.set(scheme.toLowerCase(), factory);
}

/** The scheme of a backend spec: `memory` for `memory`/`memory://`, else the URL protocol. */
export function backendScheme(spec: string): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(spec);
  return (match ? match[1]! : spec).toLowerCase();
}

/**
 * Builds the driver a spec names.
 * @example const driver = await createBackend('memory');
 */
export async function createBackend(spec: string): Promise<Driver> {
  const scheme = backendScheme(spec);
  const factory = factories.get(scheme);
  if (!factory) {
    throw new Error(`Unknown backend '${spec}': expected one of ${[...factories.keys()].map((s) => (s === 'memory' ? 'memory' : `${s}://…`)).join(', ')}.`);
  }
  return factory(spec);
}

/** Imports an adapter package, turning "not installed" into an actionable message. */
async function importAdapter(packageName: string): Promise<Record<string, unknown>> {
  try {
    // A variable specifier: adapters are optional, so the compiler must not require them to be installed.
    const specifier: string = packageName;
    return (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(`The backend needs the ${packageName} package: install it next to @ojskit/gateway (pnpm add ${packageName}).`, { cause: error });
    }
    throw error;
  }
}

/**
 * The adapter convention: a package exports `createDriverFromUrl(url)` (preferred) or a driver class that
 * takes `{ url }`. Either may be async.
 */
function adapterFactory(packageName: string, className: string): BackendFactory {
  return async (spec) => {
    const mod = await importAdapter(packageName);
    const fromUrl = mod['createDriverFromUrl'];
    if (typeof fromUrl === 'function') return (await (fromUrl as (url: string) => Driver | Promise<Driver>)(spec)) as Driver;
    const DriverClass = mod[className];
    if (typeof DriverClass === 'function') return new (DriverClass as new (options: { url: string }) => Driver)({ url: spec });
    throw new Error(`${packageName} exports neither createDriverFromUrl(url) nor ${className}.`);
  };
}

registerBackend('memory', async () => {
  const { MemoryDriver } = await import('@ojskit/memory');
  return new MemoryDriver();
});
for (const scheme of ['redis', 'rediss']) registerBackend(scheme, adapterFactory('@ojskit/redis', 'RedisDriver'));
for (const scheme of ['postgres', 'postgresql']) registerBackend(scheme, adapterFactory('@ojskit/postgres', 'PostgresDriver'));
registerBackend('kafka', adapterFactory('@ojskit/kafka', 'KafkaDriver'));
