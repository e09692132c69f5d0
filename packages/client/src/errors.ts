/** Errors the SDK raises or understands: what a handler throws to stop retries, and why a job's signal fired. */

/**
 * Throw it (or a subclass) from a handler to fail the job for good: it is reported with `retryable: false`,
 * so the server discards it (or dead-letters it) instead of scheduling another attempt.
 * @example throw new NonRetryableError('card declined')
 */
export class NonRetryableError extends Error {
  readonly retryable = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Why a job's `AbortSignal` fired: the job was cancelled (by a client, a workflow or a unique replace). */
export class JobCancelledError extends Error {
  constructor(readonly jobId: string) {
    super(`Job ${jobId} was cancelled.`);
    this.name = 'JobCancelledError';
  }
}

/** Why a job's `AbortSignal` fired: its attempt ran past the job's `timeout_ms`. */
export class JobTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
  ) {
    super(`Job ${jobId} ran past its timeout of ${timeoutMs} ms.`);
    this.name = 'JobTimeoutError';
  }
}

/** Why a job's `AbortSignal` fired: the worker is shutting down and will release the job for another worker. */
export class WorkerClosingError extends Error {
  constructor(readonly jobId: string) {
    super(`The worker is shutting down; job ${jobId} is released back to its queue.`);
    this.name = 'WorkerClosingError';
  }
}

/**
 * Why a job's `AbortSignal` fired: this worker no longer holds the job (its reservation lapsed and the server
 * gave it back to the queue, or the server failed the attempt on its timeout). Its result would be refused.
 */
export class JobLostError extends Error {
  constructor(
    readonly jobId: string,
    readonly state: string | null,
  ) {
    super(`Job ${jobId} is no longer held by this worker (state: ${state ?? 'unknown'}).`);
    this.name = 'JobLostError';
  }
}

/** `client.waitFor()` gave up before the job reached one of the awaited states. */
export class WaitTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
    readonly lastState: string | undefined,
  ) {
    super(`Job ${jobId} did not settle within ${timeoutMs} ms (last state: ${lastState ?? 'unknown'}).`);
    this.name = 'WaitTimeoutError';
  }
}

/** A fetched job whose type has no handler in this worker; it is failed with code `handler_not_found`, not retried. */
export class HandlerNotFoundError extends NonRetryableError {
  constructor(readonly jobType: string) {
    super(`No handler is registered for job type '${jobType}'.`);
  }
}
