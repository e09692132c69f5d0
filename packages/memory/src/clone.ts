/** Copying at the driver boundary, so no caller can reach into stored state. */
import type { Job } from '@ojskit/core';
import type { JobInternals } from '@ojskit/core/driver';

const objectProto = Object.prototype;

/**
 * Deep copy of a value, fast for the JSON-shaped data jobs carry (plain objects, arrays, primitives).
 *
 * Why not `structuredClone` everywhere: it costs several times more than a direct walk even for a small
 * job (it serialises through the host), and the driver copies every job on the way in and on the way out.
 * Anything that is not a plain object or array (a `Date`, a `Map`, a typed array a caller passed
 * in-process) still goes through `structuredClone`, so it keeps its type. Functions and other uncloneable
 * values throw there, as they would on any backend that has to serialise them.
 *
 * Fields holding `undefined` are dropped, as a JSON round trip through any other backend would drop them;
 * the driver relies on this to clear fields by assigning `undefined` (no `delete` on hot paths, which
 * would push V8 objects into slow dictionary mode).
 *
 * @example const copy = cloneValue({ args: [1, { a: 2 }] });
 */
export function cloneValue<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const v: unknown = value[i];
      out[i] = typeof v === 'object' && v !== null ? cloneValue(v) : v;
    }
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== objectProto && proto !== null) return structuredClone(value);
  // Built key by key into a fresh literal rather than by spread: a spread that sees objects of many shapes
  // (jobs, internals, payloads) runs V8's generic path, which cost more than the rest of the copy.
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  // for-in without an own-property check: the prototype is Object.prototype (or null), which has no
  // enumerable keys. `undefined` fields are left out.
  for (const key in source) {
    const v = source[key];
    if (v === undefined) continue;
    const copy = typeof v === 'object' && v !== null ? cloneValue(v) : v;
    // A JSON-parsed `__proto__` key is data; assigning it would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}

/**
 * The driver's own copy of a job's internals. The fields that claims and ACKs write are present from the
 * start (holding `undefined` until set), so those writes overwrite in place; added one at a time, as they
 * used to be, they grew the object and changed its shape several times in each job's life. Fields only
 * some jobs carry (expiry, unique keys, workflow membership) are copied as they come, to keep every job
 * small. Copies handed out go through `cloneValue`, which drops `undefined` fields: callers see no change.
 */
export function copyInternals(x: JobInternals): JobInternals {
  const out: JobInternals = {
    visibilityMs: x.visibilityMs,
    timeoutMs: x.timeoutMs,
    dueAt: undefined,
    claimVisibilityMs: undefined,
    visibleUntil: undefined,
    timeoutAt: undefined,
    finishedAt: undefined,
  };
  // Field by field: named reads are cheaper than a walk. clone.test.ts fails when a field is missing here.
  if (x.dueAt !== undefined) out.dueAt = x.dueAt;
  if (x.claimVisibilityMs !== undefined) out.claimVisibilityMs = x.claimVisibilityMs;
  if (x.visibleUntil !== undefined) out.visibleUntil = x.visibleUntil;
  if (x.timeoutAt !== undefined) out.timeoutAt = x.timeoutAt;
  if (x.finishedAt !== undefined) out.finishedAt = x.finishedAt;
  if (x.dispatchedAt !== undefined) out.dispatchedAt = x.dispatchedAt;
  if (x.expiresAt !== undefined) out.expiresAt = x.expiresAt;
  if (x.uniqueKey !== undefined) out.uniqueKey = x.uniqueKey;
  if (x.uniqueStates !== undefined) out.uniqueStates = cloneValue(x.uniqueStates);
  if (x.uniqueUntil !== undefined) out.uniqueUntil = x.uniqueUntil;
  if (x.uniqueOnConflict !== undefined) out.uniqueOnConflict = x.uniqueOnConflict;
  if (x.deadLetter !== undefined) out.deadLetter = x.deadLetter;
  if (x.progress !== undefined) out.progress = cloneValue(x.progress);
  if (x.workflowIndex !== undefined) out.workflowIndex = x.workflowIndex;
  if (x.workflowRole !== undefined) out.workflowRole = x.workflowRole;
  if (x.rateLimit !== undefined) out.rateLimit = { ...x.rateLimit };
  return out;
}

/** The job fields `copyJob` reads by name, in the order it writes them; every other field is copied by its walk. */
const SHAPED_JOB_ORDER: readonly string[] = [
  'specversion',
  'id',
  'type',
  'queue',
  'args',
  'meta',
  'priority',
  'state',
  'attempt',
  'max_attempts',
  'created_at',
  'enqueued_at',
  'started_at',
  'worker_id',
  'completed_at',
];
const SHAPED_JOB_KEYS: ReadonlySet<string> = new Set(SHAPED_JOB_ORDER);

/**
 * The stored `meta` of every job whose `meta` is empty, as most are: one object shared by all instead of one
 * each for the collector to copy while the job lives. Nothing writes it (a change to a job replaces the whole
 * field), and copies handed out are fresh objects.
 */
const EMPTY_META: Record<string, unknown> = Object.freeze({});

function isEmptyPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== objectProto) return false;
  for (const _ in value) return false;
  return true;
}

/**
 * The driver's own copy of a job, the way `copyInternals` copies internals: every job starts with the
 * same fields in the same order, among them those a claim and an ACK write (`started_at`, `worker_id`,
 * `completed_at`, holding `undefined` until set). Copied by `cloneValue`, each job grew its object one
 * field at a time, and the claim and the ACK grew it again, re-allocating its property store each time.
 * Other fields (scheduling, retries, results, custom attributes) are copied as they come.
 * Copies handed out go through `cloneValue`, which drops `undefined` fields: callers see no change.
 */
export function copyJob(job: Job): Job {
  const out: Job = {
    specversion: job.specversion,
    id: job.id,
    type: job.type,
    queue: job.queue,
    args: cloneValue(job.args),
    meta: isEmptyPlainObject(job.meta) ? EMPTY_META : cloneValue(job.meta),
    priority: job.priority,
    state: job.state,
    attempt: job.attempt,
    max_attempts: job.max_attempts,
    created_at: job.created_at,
    enqueued_at: job.enqueued_at,
    started_at: job.started_at,
    worker_id: job.worker_id,
    completed_at: job.completed_at,
  };
  copyOtherFields(job, out);
  return out;
}

/**
 * The copy of a stored job handed to a caller: equal to `cloneValue(job)` (fields holding `undefined`
 * dropped, the rest in the stored order), made faster. A stored job starts with the fields `copyJob` names,
 * in its order; those are written into an object literal by name, where the walk of `cloneValue` wrote every
 * field by a computed key, the costliest part of each claim's and ACK's copy. A job lacking one of the
 * fields every job has (which only a driver-level caller can store) takes `cloneValue`.
 */
export function copyStoredJob(job: Job): Job {
  if (
    job.specversion === undefined ||
    job.id === undefined ||
    job.type === undefined ||
    job.queue === undefined ||
    job.args === undefined ||
    job.meta === undefined ||
    job.priority === undefined ||
    job.state === undefined ||
    job.attempt === undefined ||
    job.max_attempts === undefined ||
    job.created_at === undefined
  ) {
    return cloneValue(job);
  }
  const out: Job = {
    specversion: field(job.specversion),
    id: field(job.id),
    type: field(job.type),
    queue: field(job.queue),
    args: cloneValue(job.args),
    meta: cloneValue(job.meta),
    priority: field(job.priority),
    state: field(job.state),
    attempt: field(job.attempt),
    max_attempts: field(job.max_attempts),
    created_at: field(job.created_at),
  };
  if (job.enqueued_at !== undefined) out.enqueued_at = field(job.enqueued_at);
  if (job.started_at !== undefined) out.started_at = field(job.started_at);
  if (job.worker_id !== undefined) out.worker_id = field(job.worker_id);
  if (job.completed_at !== undefined) out.completed_at = field(job.completed_at);
  copyOtherFields(job, out);
  return out;
}

/** Copies the fields of `job` beyond the named ones (scheduling, retries, results, custom attributes) into `out`, as they come. */
function copyOtherFields(job: Job, out: Job): void {
  const source = job as Record<string, unknown>;
  // Jobs mostly come with the named fields first and in order (the engine's parse writes them so): a key
  // compared with the next expected name (interned strings, so by identity) is cheaper than a set lookup.
  let next = 0;
  for (const key in source) {
    if (key === SHAPED_JOB_ORDER[next]) {
      next++;
      continue;
    }
    if (SHAPED_JOB_KEYS.has(key)) continue;
    const v = source[key];
    if (v === undefined) continue;
    const copy = field(v);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else out[key] = copy;
  }
}

/** A field's value copied: scalars as they are (the inlined common case), anything else by `cloneValue`. */
function field<T>(value: T): T {
  return typeof value === 'object' && value !== null ? cloneValue(value) : value;
}
