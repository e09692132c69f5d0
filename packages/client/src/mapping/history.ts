/** A job's history (ojskit extension `x-job-history`): its transitions, camelCase. */
import type { JobHistoryResponse, JobState } from '@ojskit/core';
import { timeFromWire } from './time.js';

/** One transition of a job, as its store recorded it. */
export interface JobTransitionRecord {
  at: Date;
  /** `null` for the job's creation. */
  from: JobState | null;
  to: JobState;
  /** What moved it: `push`, `fetch`, `ack`, `fail`, `visibility_timeout`, `cancel`, … */
  trigger: string;
  attempt: number;
  workerId?: string;
  /** The error type of a failure, the source of a cancel. */
  reason?: string;
}

/** A job's history, oldest first; `dropped` counts the oldest lines let go past the per-job bound. */
export interface JobHistory {
  jobId: string;
  transitions: JobTransitionRecord[];
  dropped: number;
  /** Whether the job's queue records history now; `false` when it opted out (`history: false` in its configuration). */
  recording: boolean;
}

export function historyFromWire(wire: JobHistoryResponse): JobHistory {
  return {
    jobId: wire.job_id,
    transitions: wire.history.map((line) => {
      const record: JobTransitionRecord = { at: timeFromWire(line.at)!, from: line.from, to: line.to, trigger: line.trigger, attempt: line.attempt };
      if (line.worker_id !== undefined) record.workerId = line.worker_id;
      if (line.reason !== undefined) record.reason = line.reason;
      return record;
    }),
    dropped: wire.dropped,
    recording: wire.recording,
  };
}
