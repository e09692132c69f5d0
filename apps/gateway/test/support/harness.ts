/** Test harness: a gateway over a fresh memory driver and an engine reading a ManualClock. */
import { Engine, ManualClock } from '@ojskit/core';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway, type Gateway } from '../../src/index.js';
import type { GatewayWithEngine } from '../../src/options.js';

export const OJS = 'application/openjobspec+json';

export interface Harness {
  gateway: Gateway;
  engine: Engine;
  driver: MemoryDriver;
  clock: ManualClock;
  /** `app.request` with JSON helpers. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Like `call`, returning the parsed JSON body along with the response. */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ res: Response; body: T }>;
}

export function makeHarness(options: Partial<Omit<GatewayWithEngine, 'engine'>> = {}): Harness {
  const clock = new ManualClock();
  const driver = new MemoryDriver();
  const engine = new Engine({ driver, clock, onError: () => undefined });
  const gateway = createGateway({ engine, driver, logger: false, ...options });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) (init.headers as Record<string, string>)['Content-Type'] = OJS;
    }
    return Promise.resolve(gateway.request(path, init));
  };
  return {
    gateway,
    engine,
    driver,
    clock,
    call,
    json: async (method, path, body, headers) => {
      const res = await call(method, path, body, headers);
      const text = await res.text();
      return { res, body: text.length > 0 ? JSON.parse(text) : undefined };
    },
  };
}
