/** Keeping one job that cannot be written as JSON from failing the FETCH that claimed it with others. */
import type { Job } from '@ojskit/core';
import type { GatewayEngine } from '../engine-port.js';

/**
 * The jobs of a FETCH that JSON can carry. A job that cannot be encoded (a value only an in-process caller
 * could store, such as a BigInt) would fail the whole response after the claim made every job of the batch
 * `active`, so none would reach the worker and all would burn attempts until discarded. Such a job is failed
 * instead, non-retryable with code `unserializable` (so it lands in the dead-letter queue when its policy
 * says so), and the others are served. The common case costs one `JSON.stringify` of the batch.
 */
export async function servableJobs(engine: GatewayEngine, jobs: readonly Job[]): Promise<Job[]> {
  try {
    JSON.stringify(jobs);
    return jobs as Job[];
  } catch {
    // One of them: find which, below.
  }
  const served: Job[] = [];
  for (const job of jobs) {
    try {
      JSON.stringify(job);
      served.push(job);
    } catch (error) {
      await engine
        .nack({
          job_id: job.id,
          attempt: job.attempt,
          ...(job.worker_id ? { worker_id: job.worker_id } : {}),
          error: { code: 'unserializable', message: `The job cannot be written as JSON: ${(error as Error).message}`, retryable: false },
        })
        .catch(() => undefined);
    }
  }
  return served;
}
