/** The in-process transport: an `Engine` over a driver, in the same process as the client and workers. */
import { Engine, type EngineOptions } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';

/**
 * An `Engine` to hand to `Client` and `Worker`. Given a driver, it builds the engine and starts its background
 * services (promotion of scheduled jobs, reclaiming expired reservations, cron…); given an engine, it returns
 * it as is. Close it with `await engine.close()` when done (that also closes the driver).
 * @example
 * const api = inProcess(new MemoryDriver());
 * const client = new Client(api);
 */
export function inProcess(target: Driver | Engine, options: Omit<EngineOptions, 'driver'> = {}): Engine {
  if (target instanceof Engine) return target;
  return new Engine({ ...options, driver: target }).start();
}
