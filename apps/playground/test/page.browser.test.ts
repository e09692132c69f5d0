/** The built page, served by a real gateway, in headless Chromium: the diagram, its edges, serving paths, accessibility. */
import { JOB_STATES, TERMINAL_STATES } from '@ojskit/core';
import { BORROWED_BEHAVIOURS, UNIVERSAL_MODEL, lackingTransitions } from '@ojskit/core/lifecycle';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgesFromTable } from '../src/lifecycle/layout.js';
import { seriousViolations } from './support/axe.js';
import { browserUnavailable, launchBrowser, type RunningBrowser } from './support/browser.js';
import { startGateway, type RunningGateway } from './support/gateway.js';
import { screenshot } from './support/screenshots.js';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)(`playground page${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let gateway: RunningGateway;
  let browser: RunningBrowser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e) => consoleErrors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('draws every state and every edge of core’s table, terminal states marked, and names the backend', async () => {
    const started = Date.now();
    await page.goto(`${gateway.url}/`);
    await page.getByTestId('backend').waitFor();
    const loadMs = Date.now() - started;
    expect(await page.getByTestId('backend').textContent()).toBe('memory');
    const nodes = await page.$$eval('[data-node]', (els) => els.map((e) => [e.getAttribute('data-node'), e.classList.contains('terminal')] as const));
    expect(nodes.map(([id]) => id).sort()).toEqual(['new', ...JOB_STATES].sort());
    for (const [id, terminal] of nodes) expect(terminal).toBe((TERMINAL_STATES as readonly (string | null)[]).includes(id));
    const edges = await page.$$eval('[data-edge]', (els) => els.map((e) => e.getAttribute('data-edge')));
    expect(edges.sort()).toEqual(
      edgesFromTable()
        .map((e) => e.key)
        .sort(),
    );
    console.log(`page ready (manifest shown) in ${loadMs} ms`);
    await page.waitForFunction(() => document.querySelector('[data-testid=server-summary]')?.getAttribute('data-status') === 'open');
    await screenshot(page, 'lifecycle');
  });

  it('shows an edge’s triggers on hover and on keyboard focus', async () => {
    const retry = edgesFromTable().find((e) => e.from === 'active' && e.to === 'retryable')!;
    // The middle of the drawn path (a bounding box's centre may miss a curved stroke).
    const at = await page.$eval(`[data-edge="${retry.key}"] + .edge-hit`, (el) => {
      const path = el as SVGPathElement;
      const p = path.getPointAtLength(path.getTotalLength() / 2).matrixTransform(path.getScreenCTM()!);
      return { x: p.x, y: p.y };
    });
    await page.mouse.move(at.x, at.y);
    const tip = page.getByTestId('edge-tip');
    await tip.waitFor();
    for (const trigger of retry.triggers) expect(await tip.textContent()).toContain(trigger.replace(/_/g, ' '));
    await page.mouse.move(0, 0);
    await page.focus(`[data-edge="new->available"] + .edge-hit`);
    expect(await page.getByTestId('edge-tip').textContent()).toContain('push');
  });

  it('is served at /playground/ too', async () => {
    const other = await browser.context.newPage();
    await other.goto(`${gateway.url}/playground/`);
    await other.getByTestId('backend').waitFor();
    expect(await other.$$eval('[data-node]', (els) => els.length)).toBe(JOB_STATES.length + 1);
    await other.close();
  });

  it('has no serious or critical accessibility violations (axe-core), in light and dark themes', async () => {
    for (const theme of ['light', 'dark']) {
      await page.selectOption('.theme select', theme);
      expect(await seriousViolations(page, theme)).toEqual([]);
      if (theme === 'dark') await screenshot(page, 'dark-theme');
    }
    // Every tool tab, in the light theme.
    await page.selectOption('.theme select', 'light');
    for (const tab of await page.getByRole('tab').allTextContents()) {
      await page.getByRole('tab', { name: tab }).click();
      expect(await seriousViolations(page, tab)).toEqual([]);
    }
    await page.getByRole('tab', { name: 'Scenarios' }).click();
    await page.selectOption('.theme select', 'light');
  });

  it('renders the universal model from core', async () => {
    await page.getByRole('tab', { name: 'Universal model' }).click();
    const table = page.getByTestId('universal-model');
    await table.waitFor();
    const headers = await table.locator('thead th').allTextContents();
    expect(headers.slice(1)).toEqual(UNIVERSAL_MODEL.map((s) => s.name));
    const oban = UNIVERSAL_MODEL.find((s) => s.id === 'oban')!;
    await page.selectOption('.model select', 'oban');
    const lacking = await page.locator('[data-testid=model-transitions] tr[data-support=missing]').count();
    expect(lacking).toBe(lackingTransitions(oban).length);
    const behaviours = page.locator('[data-testid=model-behaviours] li');
    expect(await behaviours.evaluateAll((items) => items.map((li) => li.getAttribute('data-answer')))).toEqual(
      BORROWED_BEHAVIOURS.filter((b) => b.systems.includes('oban')).map((b) => b.answer),
    );
    await screenshot(page, 'universal-model');
  });

  it('reaches the tools by keyboard with a visible focus ring', async () => {
    await page.getByRole('tab', { name: 'Scenarios' }).focus();
    await page.keyboard.press('ArrowRight');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, outline: getComputedStyle(el).outlineStyle, selected: el.getAttribute('aria-selected') };
    });
    expect(focused).toEqual({ text: 'Enqueue', outline: 'solid', selected: 'true' });
  });

  it('fits a phone width without horizontal scrolling', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${gateway.url}/`);
    await phone.getByTestId('backend').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(phone, 'phone');
    await phone.close();
  });

  it('with reduced motion, moves flash their edge instead of sending tokens', async () => {
    const calm = await launchBrowser({ reducedMotion: true });
    try {
      const p = await calm.context.newPage();
      await p.goto(`${gateway.url}/`);
      await p.waitForFunction(() => document.querySelector('[data-testid=server-summary]')?.getAttribute('data-status') === 'open');
      await p.evaluate(() => {
        // Records whether any token or edge flash ever appears while the scenario runs.
        const seen = ((window as unknown as { seen: { tokens: number; hot: number } }).seen = { tokens: 0, hot: 0 });
        new MutationObserver(() => {
          seen.tokens = Math.max(seen.tokens, document.querySelectorAll('.tokens circle').length);
          if (document.querySelector('.edge-line.hot')) seen.hot += 1;
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      });
      await p.locator('[data-scenario="happy-path"]').getByRole('button', { name: /^Run:/ }).click();
      await p.waitForFunction(() => document.querySelector('[data-testid="run-happy-path"]')?.getAttribute('data-status') === 'done', undefined, {
        timeout: 20_000,
      });
      const seen = await p.evaluate(() => (window as unknown as { seen: { tokens: number; hot: number } }).seen);
      expect(seen.tokens).toBe(0);
      expect(seen.hot).toBeGreaterThan(0);
    } finally {
      await calm.close();
    }
  });

  it('links to the API reference, rendered by Swagger UI from the gateway itself with "try it out" on this server', async () => {
    await page.goto(`${gateway.url}/`);
    const href = await page.getByRole('link', { name: 'API reference' }).getAttribute('href');
    expect(href).toBe(`${gateway.url}/ojs/v1/docs`);
    const docs = await browser.context.newPage();
    await docs.goto(href!);
    await docs.locator('.opblock').first().waitFor({ timeout: 20_000 });
    expect(await docs.locator('.opblock').count()).toBeGreaterThan(20);
    const outside = await docs.evaluate(
      (origin) =>
        performance
          .getEntriesByType('resource')
          .map((e) => e.name)
          .filter((n) => !n.startsWith(origin)),
      gateway.url,
    );
    expect(outside).toEqual([]);
    // "Try it out" is on from the start (tryItOutEnabled): open the manifest operation and execute it.
    await docs.locator('.opblock-summary', { hasText: '/ojs/manifest' }).first().click();
    await docs.getByRole('button', { name: 'Execute' }).first().click();
    const status = docs.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect(await status.textContent()).toContain('200');
    await docs.close();
  });

  it('logged no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
