/** Test harness: a gateway over a fresh store of one backend and an engine reading a ManualClock. */
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { DispatchLogControl } from '@ojskit/contract';
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ManualClock } from '@ojskit/core/testing';
import { createGateway, type Gateway } from '../../src/index.js';
import type { GatewayWithEngine } from '../../src/options.js';
import type { TestBackend } from './backends.js';

export const OJS = 'application/openjobspec+json';

export type HarnessOptions = Partial<Omit<GatewayWithEngine, 'engine' | 'driver'>>;

export interface Harness {
  backend: TestBackend;
  gateway: Gateway;
  engine: Engine;
  driver: Driver;
  clock: ManualClock;
  /** The store's dispatch-log control, when it has a dispatch log (the Kafka backends). */
  dispatchLog?: DispatchLogControl;
  /** `app.request` with JSON helpers. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Like `call`, returning the parsed JSON body along with the response. */
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ res: Response; body: T }>;
  /** Closes the gateway, stops the engine, deletes the store. */
  close(): Promise<void>;
}

/** Opens a gateway over a fresh store of `backend`; the caller closes it (see `useHarness`, `testHarness`). */
export async function openHarness(backend: TestBackend, options: HarnessOptions = {}): Promise<Harness> {
  const store = await backend.open();
  const clock = new ManualClock();
  const engine = new Engine({ driver: store.driver, clock, onError: () => undefined });
  let gateway: Gateway;
  try {
    gateway = createGateway({ engine, driver: store.driver, logger: false, ...options });
  } catch (error) {
    await engine.stop();
    await store.dispose();
    throw error;
  }
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) (init.headers as Record<string, string>)['Content-Type'] = OJS;
    }
    return Promise.resolve(gateway.request(path, init));
  };
  return {
    backend,
    gateway,
    engine,
    driver: store.driver,
    clock,
    ...(store.dispatchLog ? { dispatchLog: store.dispatchLog } : {}),
    call,
    json: async (method, path, body, headers) => {
      const res = await call(method, path, body, headers);
      const text = await res.text();
      return { res, body: text.length > 0 ? JSON.parse(text) : undefined };
    },
    close: async () => {
      await gateway.close();
      await engine.stop();
      await store.dispose();
    },
  };
}

/** A harness shared by the tests of the enclosing `describe`: opened before the first, closed after the last. */
export function useHarness(backend: TestBackend, options: HarnessOptions = {}): Harness {
  const harness = {} as Harness;
  beforeAll(async () => {
    Object.assign(harness, await openHarness(backend, options));
  });
  afterAll(async () => {
    await harness.close?.();
  });
  return harness;
}

/** A harness for the running test only, closed when it finishes. */
export async function testHarness(backend: TestBackend, options: HarnessOptions = {}): Promise<Harness> {
  const harness = await openHarness(backend, options);
  onTestFinished(() => harness.close());
  return harness;
}
