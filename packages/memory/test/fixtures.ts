/** Builders for stored jobs, so each test states only what it is about. */
import type { Job } from '@ojskit/core';
import type { JobInternals, StoredJob } from '@ojskit/core/driver';

export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number): string => new Date(ms).toISOString();

let counter = 0;

/** A fresh, sortable job id (later calls sort after earlier ones). */
export function nextId(): string {
  counter++;
  return `job-${String(counter).padStart(8, '0')}`;
}

/** An `available` job in queue `q` unless overridden. */
export function stored(job: Partial<Job> = {}, x: Partial<JobInternals> = {}): StoredJob {
  return {
    job: {
      specversion: '1.0',
      id: nextId(),
      type: 'test.job',
      queue: 'q',
      args: [1, { nested: 'value' }],
      meta: { trace: 'abc' },
      priority: 0,
      state: 'available',
      attempt: 0,
      max_attempts: 3,
      created_at: iso(T0),
      enqueued_at: iso(T0),
      ...job,
    },
    x: { visibilityMs: 30_000, timeoutMs: 60_000, ...x },
  };
}

/** A `scheduled` job due at `dueAt`. */
export function scheduled(dueAt: number, job: Partial<Job> = {}, x: Partial<JobInternals> = {}): StoredJob {
  const s = stored({ state: 'scheduled', scheduled_at: iso(dueAt), ...job }, { dueAt, ...x });
  delete s.job.enqueued_at;
  return s;
}

/** Insert parameters at T0 (or `now`). */
export function at(jobs: StoredJob[], now = T0) {
  return { jobs, now, nowIso: iso(now) };
}
