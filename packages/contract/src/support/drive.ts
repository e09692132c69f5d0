/** Driving a fresh job into any of the eight states through the API alone. */
import { expect } from 'vitest';
import type { Job, JobState } from '@ojskit/core';
import type { CaseContext } from '../context.js';

/** Request fields merged into the PUSH of the job being driven (its `options` are merged too). */
export type PushExtra = Record<string, unknown> & { options?: Record<string, unknown> };

/** A retry policy with deterministic delays (no jitter), so cases can compute `next_attempt_at`. */
export const FIXED_RETRY = { max_attempts: 3, initial_interval: 'PT1M', backoff_coefficient: 2, jitter: false } as const;

function withOptions(extra: PushExtra, options: Record<string, unknown>): PushExtra {
  return { ...extra, options: { ...options, ...(extra.options ?? {}) } };
}

/** Pushes a job and moves it into `state`; returns the job as read back. */
export type Into = (t: CaseContext, queue: string, extra?: PushExtra) => Promise<Job>;

export const INTO: Record<JobState, Into> = {
  async scheduled(t, queue, extra = {}) {
    const job = await t.push(queue, withOptions(extra, { scheduled_at: '+PT1H' }));
    return t.expectState(job.id, 'scheduled');
  },
  /**
   * Ready: `available`, or with a dispatch log delivered (`pending`) once settled; hold the queue first
   * (`t.heldQueue()`) to keep the job `available` there.
   */
  async available(t, queue, extra = {}) {
    const job = await t.push(queue, extra);
    return t.expectReady(job.id);
  },
  async pending(t, queue, extra = {}) {
    const job = await t.push(queue, withOptions(extra, { pending: true }));
    return t.expectState(job.id, 'pending');
  },
  async active(t, queue, extra = {}) {
    const job = await t.push(queue, extra);
    const claimed = await t.claim(queue, { worker_id: 'contract-worker' });
    expect(claimed.id).toBe(job.id);
    return t.expectState(job.id, 'active');
  },
  async retryable(t, queue, extra = {}) {
    const job = await t.push(queue, withOptions(extra, { retry: FIXED_RETRY }));
    await t.claim(queue);
    await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'boom' } });
    return t.expectState(job.id, 'retryable');
  },
  async completed(t, queue, extra = {}) {
    const job = await t.push(queue, extra);
    await t.claim(queue);
    await t.api.ack({ job_id: job.id, result: { ok: true } });
    return t.expectState(job.id, 'completed');
  },
  async cancelled(t, queue, extra = {}) {
    const job = await t.push(queue, extra);
    await t.api.cancelJob(job.id);
    return t.expectState(job.id, 'cancelled');
  },
  /** Discarded by exhaustion into the dead-letter queue (so a dead-letter retry is legal). */
  async discarded(t, queue, extra = {}) {
    const job = await t.push(queue, withOptions(extra, { retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } }));
    await t.claim(queue);
    await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'fatal' } });
    return t.expectState(job.id, 'discarded');
  },
};

/** A job discarded by exhaustion with the default `discard` policy: never in the dead-letter queue. */
export async function intoPlainDiscarded(t: CaseContext, queue: string, extra: PushExtra = {}): Promise<Job> {
  const job = await t.push(queue, withOptions(extra, { retry: { max_attempts: 1 } }));
  await t.claim(queue);
  await t.api.nack({ job_id: job.id, error: { code: 'handler_error', message: 'fatal' } });
  return t.expectState(job.id, 'discarded');
}
