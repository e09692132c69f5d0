/** Where this machine's Chromium is, how it is started, and whether the browser tests can run here. */
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = process.env['OJSKIT_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. Under CI a missing browser is an error. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (process.env['CI'] === 'true') throw new Error(`${reason}: the browser tests must run in CI.`);
  return reason;
}

/** Chromium's flags for a headless run in a container. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
