/** Progress reports of a running job. */
import type { JobState, ProgressResponse } from '@ojskit/core';
import { timeFromWire } from './time.js';

/** The last progress a job reported. */
export interface Progress {
  jobId: string;
  state: JobState;
  /** 0..1, or `null` when never reported. */
  progress: number | null;
  message: string | null;
  data: unknown;
  updatedAt: Date | null;
}

export function progressFromWire(wire: ProgressResponse): Progress {
  return {
    jobId: wire.job_id,
    state: wire.state,
    progress: wire.progress,
    message: wire.message,
    data: wire.data,
    updatedAt: timeFromWire(wire.updated_at) ?? null,
  };
}

/** The `setProgress` body. */
export function progressToWire(progress: number, message?: string, data?: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { progress };
  if (message !== undefined) body.message = message;
  if (data !== undefined) body.data = data;
  return body;
}
