/** Reads a lifecycle transition out of an OJS event (the wire shape the SSE stream and polling return). */
import { isJobState, type JobState, type OjsEvent } from '@ojskit/core';

/** One move of one job, as the view needs it. */
export interface TransitionEvent {
  readonly eventId: string;
  readonly type: string;
  readonly jobId: string;
  readonly jobType: string;
  readonly queue: string;
  /** `null` for a new job. */
  readonly from: JobState | null;
  readonly to: JobState;
  readonly attempt: number | undefined;
  readonly at: string;
  readonly workerId: string | undefined;
  /** Why, when the event says (error message, reason). */
  readonly reason: string | undefined;
}

/**
 * The transition an event records, or `undefined` for events that move nothing (heartbeats, progress,
 * queue and cron events). An event without `from` (another OJS server) is treated as a move from unknown:
 * it still counts into `to` but draws no token.
 */
export function toTransition(event: OjsEvent): TransitionEvent | undefined {
  const data = event.data as Record<string, unknown>;
  const to = data['state'];
  const jobId = data['job_id'];
  if (!isJobState(to) || typeof jobId !== 'string') return undefined;
  const rawFrom = data['from'];
  const from = rawFrom === null ? null : isJobState(rawFrom) ? rawFrom : undefined;
  if (from === undefined || from === to) return undefined;
  const error = data['error'] as { message?: unknown } | undefined;
  const reason = typeof error?.message === 'string' ? error.message : typeof data['reason'] === 'string' ? (data['reason'] as string) : undefined;
  return {
    eventId: event.id,
    type: event.type,
    jobId,
    jobType: typeof data['job_type'] === 'string' ? (data['job_type'] as string) : '',
    queue: typeof data['queue'] === 'string' ? (data['queue'] as string) : 'default',
    from,
    to,
    attempt: typeof data['attempt'] === 'number' ? (data['attempt'] as number) : undefined,
    at: event.time,
    workerId: typeof data['worker_id'] === 'string' ? (data['worker_id'] as string) : undefined,
    reason,
  };
}

/**
 * True when `b` reports the same move as `a`. The engine emits several events for one transition (a failure
 * is `job.failed` then `job.retrying`, or `job.failed`, `job.discarded` and `dead_letter.added`; a
 * dead-letter retry is `dead_letter.retried` then `job.enqueued`), all with the same time and attempt:
 * only the first one moves a count or draws a token.
 */
export function sameMove(a: TransitionEvent | undefined, b: TransitionEvent): boolean {
  return a !== undefined && a.jobId === b.jobId && a.from === b.from && a.to === b.to && a.attempt === b.attempt && a.at === b.at;
}
