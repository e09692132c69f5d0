/** The worker's side of the protocol: fetch, ack, nack and heartbeat bodies, and handler errors as FAIL errors. */

/** The `error` object of a FAIL (`nack`) request. */
export interface FailureWire {
  code: string;
  type: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  backtrace?: string[];
}

// The protocol asks for at most 50 frames.
const MAX_FRAMES = 50;

function errorClassName(error: Error): string {
  // The constructor's name survives subclassing without `this.name = …`; fall back to `name` for plain objects.
  const ctor = (error as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : error.name || 'Error';
}

function backtraceOf(error: Error): string[] | undefined {
  if (typeof error.stack !== 'string') return undefined;
  const frames = error.stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return frames.length > 0 ? frames.slice(0, MAX_FRAMES) : undefined;
}

/**
 * A thrown value as a FAIL error: type = the error's class name, stack as backtrace, `retryable: false` for
 * `NonRetryableError` (or any error carrying `retryable: false`).
 */
export function failureFromThrown(thrown: unknown): FailureWire {
  if (!(thrown instanceof Error)) {
    return { code: 'handler_error', type: typeof thrown, message: String(thrown), retryable: true };
  }
  const type = errorClassName(thrown);
  const failure: FailureWire = {
    code: 'handler_error',
    type,
    message: thrown.message,
    retryable: (thrown as { retryable?: unknown }).retryable !== false,
    details: { error_class: type },
  };
  const code = (thrown as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') failure.details!.code = code;
  const backtrace = backtraceOf(thrown);
  if (backtrace) failure.backtrace = backtrace;
  return failure;
}

/** The FAIL error for an attempt the worker stopped at the job's timeout. */
export function timeoutFailure(timeoutMs: number, elapsedMs: number): FailureWire {
  return {
    code: 'timeout',
    type: 'timeout',
    message: `Handler ran past the job's timeout of ${timeoutMs} ms.`,
    retryable: true,
    details: { timeout_kind: 'execution', limit_seconds: timeoutMs / 1000, elapsed_seconds: Math.round(elapsedMs) / 1000 },
  };
}

/** The FAIL error for a job whose type has no handler in this worker. */
export function handlerNotFoundFailure(type: string): FailureWire {
  return {
    code: 'handler_not_found',
    type: 'handler_not_found',
    message: `No handler is registered for job type '${type}'.`,
    retryable: false,
  };
}

export interface FetchParams {
  queues: readonly string[];
  count: number;
  workerId: string;
  visibilityTimeoutMs: number;
  waitMs: number;
}

export function fetchRequest(params: FetchParams): Record<string, unknown> {
  const body: Record<string, unknown> = {
    queues: params.queues,
    count: params.count,
    worker_id: params.workerId,
    visibility_timeout_ms: params.visibilityTimeoutMs,
  };
  if (params.waitMs > 0) body.wait_ms = params.waitMs;
  return body;
}

/*
 * ACK and FAIL carry the attempt they answer (an ojskit extension field; other servers ignore it). The worker id
 * alone cannot tell a late answer for a lost attempt from an answer for the current one when the same worker
 * claimed the job again; a server that guards on `attempt` refuses the stale one with 409.
 */

export function ackRequest(
  jobId: string,
  attempt: number,
  result: unknown,
  workerId: string,
): { job_id: string; attempt: number; result?: unknown; worker_id: string } {
  const body: { job_id: string; attempt: number; result?: unknown; worker_id: string } = { job_id: jobId, attempt, worker_id: workerId };
  if (result !== undefined) body.result = result;
  return body;
}

export function nackRequest(jobId: string, attempt: number, workerId: string, failure: FailureWire): Record<string, unknown> {
  return { job_id: jobId, attempt, worker_id: workerId, error: failure };
}

/** Gives a job back to its queue now, without consuming the attempt (shutdown). */
export function releaseRequest(jobId: string, attempt: number, workerId: string): Record<string, unknown> {
  return { job_id: jobId, attempt, worker_id: workerId, requeue: true };
}

export interface HeartbeatParams {
  workerId: string;
  activeJobIds: string[];
  visibilityTimeoutMs: number;
  state: 'running' | 'quiet' | 'terminate';
  queues: readonly string[];
  concurrency: number;
  hostname?: string;
  pid?: number;
}

export function heartbeatRequest(params: HeartbeatParams): Record<string, unknown> {
  const body: Record<string, unknown> = {
    worker_id: params.workerId,
    state: params.state,
    active_jobs: params.activeJobIds.length,
    active_job_ids: params.activeJobIds,
    visibility_timeout_ms: params.visibilityTimeoutMs,
    queues: params.queues,
    concurrency: params.concurrency,
  };
  if (params.hostname !== undefined) body.hostname = params.hostname;
  if (params.pid !== undefined) body.pid = params.pid;
  return body;
}
