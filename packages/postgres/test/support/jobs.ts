/** Stored-job fixtures for driver-level tests (the engine builds these in production). */
import type { Job } from '@ojskit/core';
import type { JobInternals, JobState, StoredJob } from '@ojskit/core/driver';
import { newId } from '@ojskit/core/formats';

export const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A job in `queue`, available at T0 unless overridden. */
export function storedJob(queue: string, job: Partial<Job> = {}, x: Partial<JobInternals> = {}): StoredJob {
  const state: JobState = job.state ?? 'available';
  return {
    job: {
      specversion: '1.0',
      id: newId(),
      type: 'test.job',
      queue,
      args: [1, 'two', { three: 3 }],
      meta: {},
      priority: 0,
      state,
      attempt: 0,
      max_attempts: 3,
      created_at: iso(T0),
      ...(state === 'available' ? { enqueued_at: iso(T0) } : {}),
      ...job,
    },
    x: { visibilityMs: 30_000, timeoutMs: 60_000, ...x },
  };
}
