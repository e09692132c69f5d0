/**
 * Headless Chromium through playwright-core (Debian's /usr/bin/chromium; browsers cannot be downloaded
 * here): one browser for the whole run (chromium.global.ts), a fresh context (storage, viewport, media
 * settings) per `launchBrowser`. Missing Chromium skips the browser tests on a laptop and fails them under
 * CI=true.
 */
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { inject } from 'vitest';
import { browserUnavailable } from './chromium.js';

export { browserUnavailable };

export interface RunningBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh context in the run's shared Chromium; `close` ends the context and this file's connection. */
export async function launchBrowser(options: { reducedMotion?: boolean; colorScheme?: 'light' | 'dark' } = {}): Promise<RunningBrowser> {
  const endpoint = inject('chromiumEndpoint');
  if (!endpoint) throw new Error(`no shared Chromium: ${browserUnavailable() ?? 'the global setup did not start one'}`);
  const browser = await chromium.connect(endpoint);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 720 },
    reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference',
    colorScheme: options.colorScheme ?? 'light',
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      // A connected browser's close() disconnects; the shared Chromium keeps running for other files.
      await browser.close().catch(() => undefined);
    },
  };
}

export type { Browser };
