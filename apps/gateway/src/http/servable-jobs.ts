/** Keeping one job that cannot be written as JSON from failing the FETCH that claimed it with others. */
import type { FetchResponse, Job } from '@ojskit/core';
import type { GatewayEngine } from '../engine-port.js';

/**
 * The FETCH response as JSON text, with the jobs JSON can carry. A job that cannot be encoded (a value only an
 * in-process caller could store, such as a BigInt) would fail the whole response after the claim made every
 * job of the batch `active`, so none would reach the worker and all would burn attempts until discarded. Such
 * a job is failed instead, non-retryable with code `unserializable` (so it lands in the dead-letter queue when
 * its policy says so), and the others are served. The common case is the one encoding the response needs
 * anyway.
 */
export async function servableFetchText(engine: GatewayEngine, response: FetchResponse): Promise<string> {
  try {
    return JSON.stringify(response);
  } catch {
    // One of the jobs: find which, below.
  }
  const served: Job[] = [];
  for (const job of response.jobs) {
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
  return JSON.stringify(served.length > 0 ? { jobs: served, job: served[0] } : { jobs: served });
}
