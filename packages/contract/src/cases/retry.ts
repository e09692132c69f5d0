/** Retry: backoff strategies, caps, jitter bounds, due times, attempt counting, non-retryable matching. */
import { expect } from 'vitest';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';

/** Fails a job `failures` times (retrying in between) and returns every `retry_delay_ms` chosen. */
async function delaysOf(t: CaseContext, retry: Record<string, unknown>, failures: number): Promise<number[]> {
  const queue = t.queue();
  const job = await t.push(queue, { options: { retry: { max_attempts: failures + 1, ...retry } } });
  const delays: number[] = [];
  for (let i = 0; i < failures; i++) {
    await t.claim(queue);
    const res = await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: `#${i + 1}` } });
    expect(res.state).toBe('retryable');
    expect(res.next_attempt_at).toBe(t.iso(res.retry_delay_ms!));
    delays.push(res.retry_delay_ms!);
    await t.advance(res.retry_delay_ms!);
  }
  return delays;
}

/** Fails one fresh job once with `error` under `retry` and returns the resulting state. */
async function stateAfterFailure(t: CaseContext, retry: Record<string, unknown>, error: Record<string, unknown>): Promise<string> {
  const job = await INTO.active(t, t.queue(), { options: { retry } });
  const res = await t.api.nack({ job_id: job.id, error });
  expect((await t.job(job.id)).state).toBe(res.state);
  return res.state;
}

export function registerRetryCases(suite: Suite): void {
  suite.group('retry', () => {
    const NO_JITTER = { initial_interval: 'PT1S', jitter: false };
    const strategies: Array<[string, Record<string, unknown>, number[]]> = [
      ['exponential', { ...NO_JITTER, backoff_coefficient: 2 }, [1_000, 2_000, 4_000, 8_000]],
      ['linear', { ...NO_JITTER, backoff_strategy: 'linear' }, [1_000, 2_000, 3_000, 4_000]],
      ['constant', { ...NO_JITTER, backoff_strategy: 'constant' }, [1_000, 1_000, 1_000, 1_000]],
      ['polynomial', { ...NO_JITTER, backoff_strategy: 'polynomial', backoff_coefficient: 2 }, [1_000, 4_000, 9_000, 16_000]],
      ['coefficient-one', { ...NO_JITTER, backoff_coefficient: 1 }, [1_000, 1_000, 1_000, 1_000]],
      ['max-interval-cap', { initial_interval: 'PT10S', backoff_coefficient: 3, max_interval: 'PT20S', jitter: false }, [10_000, 20_000, 20_000, 20_000]],
      ['backoff-type-alias', { ...NO_JITTER, backoff_type: 'linear' }, [1_000, 2_000, 3_000, 4_000]],
    ];
    for (const [name, retry, expected] of strategies) {
      suite.test(`retry.backoff.${name}`, `${name}: delays ${expected.join(', ')} ms`, async (t) => {
        expect(await delaysOf(t, retry, expected.length)).toEqual(expected);
      });
    }

    suite.test(
      'retry.backoff.jitter-bounds',
      'jittered delays stay within [0.5, 1.5] of the raw delay (rounded to the millisecond) and under max_interval',
      async (t) => {
        const delays = await delaysOf(t, { initial_interval: 'PT10S', backoff_coefficient: 2, max_interval: 'PT30S' }, 3);
        expect(delays[0]).toBeGreaterThanOrEqual(5_000);
        expect(delays[0]).toBeLessThanOrEqual(15_000);
        expect(delays[1]).toBeGreaterThanOrEqual(10_000);
        expect(delays[1]).toBeLessThanOrEqual(30_000);
        expect(delays[2]).toBeGreaterThanOrEqual(15_000);
        expect(delays[2]).toBeLessThanOrEqual(30_000);
      },
    );

    suite.test('retry.default-policy', 'the default policy: 3 attempts, first delay ~1 s with jitter, then discard', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue);
      await t.claim(queue);
      const first = await t.api.nack({ job_id: job.id, error: { code: 'e', message: '1' } });
      expect(first.state).toBe('retryable');
      // U[0.5, 1.5) × the delay, rounded to the millisecond: the upper bound itself can come out (1 draw in ~2 000).
      expect(first.retry_delay_ms).toBeGreaterThanOrEqual(500);
      expect(first.retry_delay_ms).toBeLessThanOrEqual(1_500);
      await t.advance(first.retry_delay_ms!);
      await t.claim(queue);
      const second = await t.api.nack({ job_id: job.id, error: { code: 'e', message: '2' } });
      expect(second.retry_delay_ms).toBeGreaterThanOrEqual(1_000);
      expect(second.retry_delay_ms).toBeLessThanOrEqual(3_000);
      await t.advance(second.retry_delay_ms!);
      expect((await t.claim(queue)).attempt).toBe(3);
      const third = await t.api.nack({ job_id: job.id, error: { code: 'e', message: '3' } });
      expect(third).toMatchObject({ state: 'discarded', attempt: 3, max_attempts: 3 });
      expect((await t.job(job.id)).errors!.map((e) => [e.message, e.attempt])).toEqual([
        ['1', 1],
        ['2', 2],
        ['3', 3],
      ]);
    });

    suite.test('retry.not-claimable-early', 'a retryable job is not claimable before next_attempt_at; FETCH claims it at that time', async (t) => {
      const queue = t.queue();
      const job = await INTO.retryable(t, queue);
      t.clock.advance(job.retry_delay_ms! - 1);
      expect(await t.claimIds([queue])).toEqual([]);
      await t.maintenance();
      await t.expectState(job.id, 'retryable');
      t.clock.advance(1);
      const [claimed] = (await t.api.fetch({ queues: [queue] })).jobs;
      expect(claimed).toMatchObject({ id: job.id, attempt: 2, retry_delay_ms: job.retry_delay_ms });
      expect(claimed).not.toHaveProperty('next_attempt_at');
    });

    suite.test('retry.promoted-by-maintenance', 'maintenance moves a due retryable job to available with enqueued_at', async (t) => {
      const job = await INTO.retryable(t, t.queue());
      await t.advance(job.retry_delay_ms!);
      const after = await t.expectReady(job.id);
      // next_attempt_at may stay until the next claim (lifecycle.md, timestamps table).
      expect(after.enqueued_at).toBe(t.iso());
    });

    suite.test('retry.max-attempts-zero-or-one', 'max_attempts 0 or 1: the first failure discards', async (t) => {
      for (const max of [0, 1]) {
        expect(await stateAfterFailure(t, { max_attempts: max }, { code: 'e', message: 'x' })).toBe('discarded');
      }
    });

    suite.test('retry.retryable-false', 'error.retryable:false discards at once', async (t) => {
      expect(await stateAfterFailure(t, { max_attempts: 5 }, { code: 'e', message: 'x', retryable: false })).toBe('discarded');
    });

    suite.test('retry.code-cancelled', "error code 'cancelled' discards at once", async (t) => {
      expect(await stateAfterFailure(t, { max_attempts: 5 }, { code: 'cancelled', message: 'x' })).toBe('discarded');
    });

    suite.test('retry.non-retryable.exact', 'non_retryable_errors matches the error type exactly', async (t) => {
      const retry = { max_attempts: 5, non_retryable_errors: ['ValidationError'] };
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'ValidationError' })).toBe('discarded');
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'ValidationErrorX' })).toBe('retryable');
    });

    suite.test('retry.non-retryable.prefix', "an entry ending in '.*' matches by prefix, case-sensitively", async (t) => {
      const retry = { max_attempts: 5, non_retryable_errors: ['auth.*'] };
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'auth.token_expired' })).toBe('discarded');
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'Auth.token_expired' })).toBe('retryable');
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'xauth.token' })).toBe('retryable');
    });

    suite.test('retry.non-retryable.code-and-class', 'entries match the error code and details.error_class too', async (t) => {
      expect(await stateAfterFailure(t, { max_attempts: 5, non_retryable_errors: ['bad_input'] }, { code: 'bad_input', message: 'x', type: 'Other' })).toBe(
        'discarded',
      );
      expect(
        await stateAfterFailure(
          t,
          { max_attempts: 5, non_retryable_errors: ['KeyError'] },
          { code: 'e', message: 'x', type: 'T', details: { error_class: 'KeyError' } },
        ),
      ).toBe('discarded');
    });

    suite.test('retry.non-retryable.never-message', 'entries never match the error message', async (t) => {
      expect(await stateAfterFailure(t, { max_attempts: 5, non_retryable_errors: ['fatal'] }, { code: 'e', message: 'fatal', type: 'T' })).toBe('retryable');
    });

    suite.test('retry.non-retryable.regex', 'entries are also anchored regular expressions (Auth.* matches AuthenticationError)', async (t) => {
      const retry = { max_attempts: 5, non_retryable_errors: ['Auth.*'] };
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'AuthenticationError' })).toBe('discarded');
      expect(await stateAfterFailure(t, retry, { code: 'e', message: 'x', type: 'NotAuthenticationError' })).toBe('retryable');
    });

    suite.test('retry.non-retryable.dead-letter', 'a non-retryable failure under a dead_letter policy enters the DLQ', async (t) => {
      const job = await INTO.active(t, t.queue(), { options: { retry: { max_attempts: 5, on_exhaustion: 'dead_letter', non_retryable_errors: ['Fatal'] } } });
      const res = await t.api.nack({ job_id: job.id, error: { code: 'e', message: 'x', type: 'Fatal' } });
      expect(res).toMatchObject({ state: 'discarded', dead_lettered: true });
      expect((await t.api.getDeadLetter(job.id)).job.id).toBe(job.id);
    });
  });
}
