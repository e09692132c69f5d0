/**
 * Frame times and JS heap of the playground while a real gateway processes ~2,000 jobs/s.
 *
 * A gateway (memory backend unless --backend is given) serves the built page; this process enqueues
 * batches at the target rate and runs an SDK Worker over HTTP that completes them, so the page only
 * watches (as an operator's tab would). Headless Chromium records every animation frame's duration and
 * samples the JS heap over CDP. Figures are printed, never asserted.
 *
 *   pnpm --filter @ojskit/playground build && pnpm --filter @ojskit/playground bench [--rate 2000 --seconds 20]
 */
import { parseArgs } from 'node:util';
import { Worker, http } from '@ojskit/client';
import { launchBrowser } from '../test/support/browser.js';
import { startGateway } from '../test/support/gateway.js';

const { values } = parseArgs({
  // pnpm 10 forwards a literal `--` to the script: skip it.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { rate: { type: 'string', default: '2000' }, seconds: { type: 'string', default: '20' }, backend: { type: 'string', default: 'memory' } },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const queue = `bench-${Date.now().toString(36)}`;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const gateway = await startGateway(['--backend', values.backend!]);
const api = http(gateway.url);
const worker = new Worker(api, { queues: [queue], concurrency: 200 });
worker.register('bench.noop', async () => null);
worker.on('error', () => undefined);
let completed = 0;
worker.on('completed', () => (completed += 1));
worker.start();

const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(`${gateway.url}/`);
  await page.waitForFunction(() => document.querySelector('[data-testid=server-summary]')?.getAttribute('data-status') === 'open');
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const heapMb = async (): Promise<number> => {
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
  };
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  await page.evaluate(`(() => {
    window.frames_ = [];
    let last = performance.now();
    const tick = (now) => { window.frames_.push(now - last); last = now; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);

  // Producer: one batch every 100 ms sized for the target rate.
  const batch = Math.max(1, Math.round(rate / 10));
  let enqueued = 0;
  const started = Date.now();
  const heap: { t: number; mb: number }[] = [{ t: 0, mb: await heapMb() }];
  const producer = setInterval(() => {
    void api.enqueueBatch({ jobs: Array.from({ length: batch }, (_, i) => ({ type: 'bench.noop', args: [enqueued + i], options: { queue } })) }).then(
      () => (enqueued += batch),
      () => undefined,
    );
  }, 100);
  const sampler = setInterval(() => void heapMb().then((mb) => heap.push({ t: Math.round((Date.now() - started) / 1000), mb })), 2_000);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  clearInterval(producer);
  clearInterval(sampler);
  const elapsed = (Date.now() - started) / 1000;
  const frames = ((await page.evaluate('window.frames_')) as number[]).slice(5);
  const sorted = [...frames].sort((a, b) => a - b);
  const fps = (ms: number): string => (1000 / ms).toFixed(1);
  heap.push({ t: Math.round(elapsed), mb: await heapMb() });

  console.log(`playground frame bench: backend ${values.backend}, target ${rate} jobs/s for ${seconds} s`);
  console.log(`  gateway processed: ${enqueued} enqueued, ${completed} completed by the worker (${Math.round(completed / elapsed)} jobs/s completed)`);
  console.log(`  frames: ${frames.length} in ${elapsed.toFixed(1)} s (${(frames.length / elapsed).toFixed(1)} fps mean)`);
  console.log(
    `  frame time p50 ${percentile(sorted, 50).toFixed(1)} ms (${fps(percentile(sorted, 50))} fps), p95 ${percentile(sorted, 95).toFixed(1)} ms (${fps(percentile(sorted, 95))} fps), p99 ${percentile(sorted, 99).toFixed(1)} ms (${fps(percentile(sorted, 99))} fps), max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
  );
  console.log(`  JS heap (MB) over time: ${heap.map((h) => `${h.t}s=${h.mb.toFixed(1)}`).join(' ')}`);
  const shown = await page.locator('[data-count="completed"]').first().textContent();
  console.log(`  page shows completed = ${shown}; stream ${await page.getByTestId('server-summary').textContent()}`);
  if (consoleErrors.length > 0) console.log(`  page errors: ${consoleErrors.join(' | ')}`);
} finally {
  await worker.close({ timeoutMs: 2_000 });
  await api.close();
  await browser.close();
  await gateway.stop();
}
