/** Building the OJS events for job transitions: one place decides which events a transition emits. */
import { SINCE_FIELDS, type EventType, type JobEventRecord } from '../events/event.js';
import type { JobState } from '../lifecycle/states.js';
import type { Job } from '../schemas/job.js';
import type { JobSummary } from '../driver/records.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../schemas/patterns.js';

/**
 * A job event: common data (job_id, job_type, queue, state, from, attempt) plus `extra`. `since` (when the job
 * entered `from`) is read from the job unless given: a move that clears the instant (a reclaim, a requeue)
 * passes the value the job had before.
 */
export function jobEvent(
  type: EventType,
  job: Job | JobSummary,
  from: JobState | null,
  time: string,
  extra?: Record<string, unknown>,
  since?: string,
): JobEventRecord {
  const field = from === null ? undefined : SINCE_FIELDS[from];
  const at = since ?? (field === undefined ? undefined : (job as Partial<Job>)[field]);
  return { kind: 'job', type, jobId: job.id, jobType: job.type, queue: job.queue, state: job.state, from, attempt: job.attempt, time, extra, since: at };
}

/** The event for a job that just entered its first state. */
export function createdEvent(job: Job, time: string): JobEventRecord {
  if (job.state === 'scheduled') return jobEvent('job.scheduled', job, null, time, { scheduled_at: job.scheduled_at });
  if (job.state === 'pending') return jobEvent('job.pending', job, null, time);
  if (job.scheduled_at) return jobEvent('job.enqueued', job, null, time, { priority: job.priority, scheduled_at: job.scheduled_at });
  return jobEvent('job.enqueued', job, null, time, priorityExtra(job.priority));
}

/**
 * `{ priority }`, one shared object per priority: the hub keeps each event's extra until the event leaves
 * its window, and an enqueue event per job would otherwise keep an object per job. Extras are never written.
 */
function priorityExtra(priority: number): Record<string, unknown> {
  const i = priority - MIN_PRIORITY;
  if (!Number.isInteger(i) || i < 0 || i > MAX_PRIORITY - MIN_PRIORITY) return { priority };
  return (PRIORITY_EXTRAS[i] ??= Object.freeze({ priority }));
}

const PRIORITY_EXTRAS: Array<Record<string, unknown> | undefined> = [];

/** Durations below this many milliseconds share their `{ duration_ms }` extra. */
const SHARED_DURATIONS = 1_000;
const DURATION_EXTRAS: Array<Record<string, unknown> | undefined> = [];

/**
 * `{ duration_ms }` of a job completed without a result: one shared object per short duration, as
 * `priorityExtra` does for priorities, since most jobs take under a second. Extras are never written.
 */
export function durationExtra(ms: number): Record<string, unknown> {
  if (!Number.isInteger(ms) || ms < 0 || ms >= SHARED_DURATIONS) return { duration_ms: ms };
  return (DURATION_EXTRAS[ms] ??= Object.freeze({ duration_ms: ms }));
}

let lastStarted: Readonly<{ worker_id: string }> | undefined;

/**
 * `{ worker_id }` of a `job.started` event, shared with the previous claim's when the worker is the same:
 * a worker claims again and again, and each event keeps its extra. Extras are never written.
 */
export function startedExtra(workerId: string | undefined): Record<string, unknown> {
  if (workerId === undefined) return { worker_id: workerId };
  if (lastStarted?.worker_id !== workerId) lastStarted = Object.freeze({ worker_id: workerId });
  return lastStarted;
}

/**
 * Events for a job that failed (FAIL, execution timeout, visibility timeout, worker death). `startedAt`: the
 * failed attempt's start, for moves that clear it (a reclaim).
 */
export function failureEvents(job: Job, time: string, deadLettered: boolean, startedAt?: string): JobEventRecord[] {
  const error = job.error;
  const events = [
    jobEvent(
      'job.failed',
      job,
      'active',
      time,
      { error: error ? { code: error.code, type: error.type, message: error.message, retryable: error.retryable ?? job.state !== 'discarded' } : undefined },
      startedAt,
    ),
  ];
  if (job.state === 'retryable') {
    events.push(
      jobEvent('job.retrying', job, 'active', time, {
        max_attempts: job.max_attempts,
        next_retry_at: job.next_attempt_at,
        retry_delay_ms: job.retry_delay_ms,
        error,
      }),
    );
  } else if (job.state === 'discarded') {
    events.push(jobEvent('job.discarded', job, 'active', time, { total_attempts: job.attempt, last_error: error }));
    if (deadLettered) events.push(jobEvent('dead_letter.added', job, 'active', time));
  }
  return events;
}

/** Event for a job discarded by expiry. */
export function expiredEvent(job: Job, from: JobState | null, time: string): JobEventRecord {
  return jobEvent('job.expired', job, from, time, { created_at: job.created_at, expired_at: job.expired_at ?? time });
}
