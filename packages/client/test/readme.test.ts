/** The README's code is the examples' code, and every example runs and does what the README says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '@ojskit/core/schemas';
import { JobCancelledError, JobTimeoutError } from '../src/index.js';
import { renderReadme, snippetsOf } from '../scripts/readme.js';
import * as cancellation from '../examples/cancellation.js';
import * as quickstart from '../examples/quickstart.js';
import * as retries from '../examples/retries.js';
import * as scheduling from '../examples/scheduling.js';
import * as shutdown from '../examples/shutdown.js';
import * as workflows from '../examples/workflows.js';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('shows exactly the code of the examples (run `pnpm readme` after editing one)', () => {
    expect(renderReadme(README)).toBe(README);
  });

  it('takes every snippet from an example this test runs', () => {
    const files = new Set(snippetsOf(README).map((s) => s.path));
    expect([...files].sort()).toEqual(['cancellation', 'quickstart', 'retries', 'scheduling', 'shutdown', 'workflows'].map((f) => `examples/${f}.ts`));
    // …and every region of those examples is shown.
    for (const file of files) {
      const regions = [...readFileSync(join(import.meta.dirname, '..', file), 'utf8').matchAll(/\/\/ #region ([\w-]+)/g)].map((m) => m[1]);
      const shown = snippetsOf(README)
        .filter((s) => s.path === file)
        .map((s) => s.region);
      expect(shown.sort(), file).toEqual(regions.sort());
    }
  });
});

describe('README states the defaults', () => {
  it('the default retry policy, as core defines it', () => {
    const d = DEFAULT_RETRY_POLICY;
    expect(README).toContain(
      `**${d.maxAttempts} attempts** in all (the first run and ${d.maxAttempts - 1} retries),\nwaiting **${d.initialIntervalMs / 1000} s** before the first retry and doubling each time (exponential backoff, coefficient ${d.backoffCoefficient}, at most\n${d.maxIntervalMs / 60_000} min per wait)`,
    );
    expect([d.backoffStrategy, d.jitter, d.onExhaustion]).toEqual(['exponential', true, 'discard']);
  });
});

describe('examples', () => {
  beforeAll(() => {
    // The examples narrate with console.log; keep the test output readable.
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterAll(() => vi.restoreAllMocks());

  it('quickstart: enqueue, process, wait for the typed result', async () => {
    const done = await quickstart.main();
    expect(done).toMatchObject({ state: 'completed', result: { messageId: 'msg-ada@example.com' } });
  });

  it('retries: transient errors retried, NonRetryableError dead-lettered, then retried from the DLQ', async () => {
    const { paid, failed, deadLettered, retried } = await retries.main();
    expect(paid).toMatchObject({ state: 'completed', attempt: 2, result: 'receipt-1' });
    expect(paid.errors[0]).toMatchObject({ message: 'gateway timeout', type: 'Error' });
    expect(failed).toMatchObject({ state: 'discarded', attempt: 1, error: { type: 'CardDeclinedError', retryable: false } });
    expect(deadLettered).toEqual([failed.id]);
    expect(retried).toMatchObject({ state: 'discarded', attempt: 1 });
  });

  it('scheduling: delayed and dated jobs wait, then run; crons register and go', async () => {
    const { soon, later, ran, tomorrow } = await scheduling.main();
    expect([soon.state, later.state]).toEqual(['scheduled', 'scheduled']);
    expect(later.scheduledAt?.getTime()).toBe(tomorrow.getTime());
    expect(ran).toMatchObject({ state: 'completed', result: 'sent: stretch' });
    expect(ran.startedAt!.getTime()).toBeGreaterThanOrEqual(soon.scheduledAt!.getTime());
  });

  it('cancellation: a cancel and a timeout both reach the handler through its signal', async () => {
    const { cancelled, timedOut, reasons } = await cancellation.main();
    expect(cancelled).toMatchObject({ state: 'cancelled', previousState: 'active' });
    expect(timedOut).toMatchObject({ state: 'discarded', error: { code: 'timeout' } });
    expect(reasons[0]).toBeInstanceOf(JobCancelledError);
    expect(reasons[1]).toBeInstanceOf(JobTimeoutError);
  });

  it('shutdown: the quick job completes, the long one is released with its attempt handed back', async () => {
    const { quick, long } = await shutdown.main();
    expect(quick.state).toBe('completed');
    expect(long).toMatchObject({ state: 'available', attempt: 0 });
  });

  it('workflows: batch enqueue, a chain passing results, a batch callback, middleware', async () => {
    const { jobs, checkout, published, charge, timings } = await workflows.main();
    expect(jobs).toHaveLength(2);
    expect(checkout.state).toBe('completed');
    expect(charge.result).toBe('charged {"id":7,"valid":true}');
    expect(published.state).toBe('completed');
    expect(timings.some((t) => t.startsWith('album.publish took'))).toBe(true);
  });
});
