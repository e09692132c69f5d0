/** Copying at the driver boundary, so no caller can reach into stored state. */
import type { JobInternals } from '@ojskit/core';

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
 * The driver's own copy of a job's internals, with every field present from the start (unset ones hold
 * `undefined`). Claims, heartbeats and ACKs then overwrite fields in place; added one at a time, as they
 * used to be, they grew the object and changed its shape several times in each job's life. Copies handed
 * out go through `cloneValue`, which drops the `undefined` fields, so callers see no difference.
 * The mapped type makes a field added to `JobInternals` a compile error here until it is copied too.
 */
export function copyInternals(x: JobInternals): JobInternals {
  const out: { [K in keyof Required<JobInternals>]: JobInternals[K] } = {
    visibilityMs: x.visibilityMs,
    timeoutMs: x.timeoutMs,
    claimVisibilityMs: x.claimVisibilityMs,
    visibleUntil: x.visibleUntil,
    timeoutAt: x.timeoutAt,
    dueAt: x.dueAt,
    expiresAt: x.expiresAt,
    finishedAt: x.finishedAt,
    deadLetter: x.deadLetter,
    uniqueKey: x.uniqueKey,
    uniqueStates: x.uniqueStates === undefined ? undefined : cloneValue(x.uniqueStates),
    uniqueUntil: x.uniqueUntil,
    uniqueOnConflict: x.uniqueOnConflict,
    progress: x.progress === undefined ? undefined : cloneValue(x.progress),
    workflowIndex: x.workflowIndex,
    workflowRole: x.workflowRole,
  };
  return out;
}
