/**
 * Screenshots for review, written by the browser tests to apps/playground/test-output/screenshots/ (ignored by
 * git, so a test run leaves the work tree clean). `UPDATE_SCREENSHOTS=1` writes them to screenshots/ instead:
 * the README's copies.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

export const SCREENSHOT_DIR = fileURLToPath(
  new URL(process.env['UPDATE_SCREENSHOTS'] === '1' ? '../../screenshots/' : '../../test-output/screenshots/', import.meta.url),
);

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}${name}.png`, animations: 'disabled' });
}
