/**
 * Headless Chromium through playwright-core (Debian's /usr/bin/chromium; browsers cannot be downloaded
 * here), with a fresh profile in a temp dir that is deleted afterwards. Missing Chromium skips the browser
 * tests on a laptop and fails them under CI=true.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env['OJSKIT_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. Under CI a missing browser is an error. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (process.env['CI'] === 'true') throw new Error(`${reason}: the browser tests must run in CI.`);
  return reason;
}

export interface RunningBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(options: { reducedMotion?: boolean; colorScheme?: 'light' | 'dark' } = {}): Promise<RunningBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'ojskit-playground-chromium-'));
  // launchPersistentContext takes the profile dir itself (playwright refuses --user-data-dir in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    viewport: { width: 1280, height: 720 },
    reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference',
    colorScheme: options.colorScheme ?? 'light',
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
