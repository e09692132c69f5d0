/**
 * The server switcher and side-by-side mode: the page served by a memory gateway adds a second, real
 * gateway on PostgreSQL (its own schema, an API key, CORS allowing the first gateway's origin) and runs
 * the same scenario on both. Skips without Chromium or PostgreSQL on a laptop; fails under CI=true.
 */
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, launchBrowser, type RunningBrowser } from './support/browser.js';
import { startGateway, type RunningGateway } from './support/gateway.js';
import { screenshot } from './support/screenshots.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const unavailable = browserUnavailable() ?? (await postgresUnavailable());

async function postgresUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    if (process.env['CI'] === 'true') throw new Error(`PostgreSQL unreachable at ${DATABASE_URL} under CI: ${String(error)}`, { cause: error });
    return `PostgreSQL unreachable at ${DATABASE_URL}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe.skipIf(unavailable !== undefined)(`side by side: memory and PostgreSQL${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const schema = `ojskit_playground_${process.pid}_${Date.now().toString(36)}`;
  const apiKey = 'playground-test-key';
  let memory: RunningGateway;
  let postgres: RunningGateway;
  let browser: RunningBrowser;
  let page: Page;

  beforeAll(async () => {
    memory = await startGateway();
    postgres = await startGateway(['--backend', `${DATABASE_URL}?schema=${schema}`, '--api-key', apiKey, '--cors-origin', memory.url]);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${memory.url}/`);
    await page.getByTestId('backend').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await memory?.stop();
    await postgres?.stop();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('adds the second server with its API key and shows its backend next to the first', async () => {
    await page.locator('.switcher summary').click();
    await page.getByLabel('Add server URL').fill(postgres.url);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByLabel('Side by side with').selectOption({ index: 1 });
    await page.locator('.switcher summary').click();
    const summaries = page.getByTestId('server-summary');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=server-summary][data-status=open]').length === 2, undefined, { timeout: 20_000 });
    expect(await summaries.locator('[data-testid=backend]').allTextContents()).toEqual(['memory', 'postgres']);
  });

  it('runs one scenario on both servers: the same moves, each with its own timing', async () => {
    await page.locator('[data-scenario="retry-backoff"]').getByRole('button', { name: /^Run:/ }).click();
    await page.waitForFunction(
      () => {
        const runs = [...document.querySelectorAll('[data-testid="run-retry-backoff"]')];
        return runs.length === 2 && runs.every((r) => r.getAttribute('data-status') !== 'running');
      },
      undefined,
      { timeout: 40_000 },
    );
    const runs = page.getByTestId('run-retry-backoff');
    expect(await runs.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['done', 'done']);
    for (const text of await runs.allTextContents()) expect(text).toContain('completed on attempt 3');
    // Each diagram counted the move into completed on its own server.
    const completed = await page.locator('[data-count="completed"]').allTextContents();
    expect(completed.map(Number).every((n) => n >= 1)).toBe(true);
    await screenshot(page, 'side-by-side');
  });
});
