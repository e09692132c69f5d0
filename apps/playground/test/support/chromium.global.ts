/**
 * Global setup of the playground's tests: one Chromium for every test file. Each file connects to it and works
 * in contexts of its own (fresh storage, its own viewport and media settings), instead of starting a browser
 * per file and per setting. No Chromium: nothing starts, and the browser files skip (fail under CI=true).
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM_PATH, browserUnavailable } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket endpoint, for `chromium.connect`; empty when there is none. */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (browserUnavailable() !== undefined) {
    project.provide('chromiumEndpoint', '');
    return async () => undefined;
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
