/** Builders of stored jobs for direct driver tests. */
import type { Job } from '@ojskit/core';
import type { JobInternals, StoredJob } from '@ojskit/core/driver';
import { newId } from '@ojskit/core/formats';

export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A valid stored job in `available` (override anything). */
export function storedJob(job: Partial<Job> = {}, x: Partial<JobInternals> = {}): StoredJob {
  return {
    job: {
      specversion: '1.0',
      id: newId(),
      type: 'test.noop',
      queue: 'default',
      args: [],
      meta: {},
      priority: 0,
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      created_at: iso(T0),
      enqueued_at: iso(T0),
      ...job,
    } as Job,
    x: { visibilityMs: 30_000, timeoutMs: 60_000, ...x },
  };
}
