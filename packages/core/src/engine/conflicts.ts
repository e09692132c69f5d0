/** Turning a failed compare-and-set into the protocol's error: 404 when the job is gone, 409 naming its state. */
import type { TransitionResult } from '../driver/driver.js';
import { OjsError } from '../errors/ojs-error.js';
import type { JobState } from '../lifecycle/states.js';
import { isUuidV7 } from '../formats/ids.js';

/**
 * Ids are UUIDv7, so a string that is not one names nothing: `404 not_found`, decided before any driver
 * sees it (drivers may store ids in typed columns that would reject it with a storage error).
 */
export function assertIdFormat(id: string, resourceType = 'job'): void {
  if (!isUuidV7(id)) throw OjsError.notFound(resourceType, String(id).slice(0, 100));
}

/** The error for an operation that needed the job in `expected` but found it elsewhere (or missing). */
export function transitionError(result: Extract<TransitionResult, { ok: false }>, jobId: string, operation: string, expected?: JobState): OjsError {
  if (result.state === null) return OjsError.notFound('job', jobId);
  const details: Record<string, unknown> = { job_id: jobId, current_state: result.state };
  if (expected) details.expected_state = expected;
  const needs = expected ? ` (it must be '${expected}')` : '';
  return OjsError.conflict(`Cannot ${operation} job '${jobId}': it is '${result.state}'${needs}.`, details);
}

/** The error when the job is active but reserved by a different worker. */
export function reservationError(jobId: string, holder: string | undefined, caller: string): OjsError {
  return OjsError.conflict(`Job '${jobId}' is reserved by worker '${holder ?? 'unknown'}', not '${caller}'.`, {
    job_id: jobId,
    current_state: 'active',
    expected_state: 'active',
    worker_id: caller,
    holder_worker_id: holder,
  });
}

/** The error when an ACK/FAIL names an attempt the job has moved past (its reservation was lost and re-claimed). */
export function staleAttemptError(jobId: string, current: number, claimed: number): OjsError {
  return OjsError.conflict(`Job '${jobId}' is on attempt ${current}, not ${claimed}: that attempt's reservation was lost.`, {
    job_id: jobId,
    current_state: 'active',
    expected_state: 'active',
    current_attempt: current,
    attempt: claimed,
  });
}
