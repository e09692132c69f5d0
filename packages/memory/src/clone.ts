/** Copying at the driver boundary, so no caller can reach into stored state. */

const objectProto = Object.prototype;

/**
 * Deep copy of a value, fast for the JSON-shaped data jobs carry (plain objects, arrays, primitives).
 *
 * Why not `structuredClone` everywhere: it costs several microseconds even for a two-element `args`
 * (it serialises through the host), which on its own would cap lifecycles far below the throughput
 * target; a direct walk costs tens of nanoseconds for the same payload. Anything that is not a plain
 * object or array (a `Date`, a `Map`, a typed array a caller passed in-process) still goes through
 * `structuredClone`, so it keeps its type. Functions and other uncloneable values throw there, as they
 * would on any other backend that has to serialise them.
 *
 * @example const copy = cloneValue({ args: [1, { a: 2 }] });
 */
export function cloneValue<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = cloneValue(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === objectProto || proto === null) {
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (Object.prototype.hasOwnProperty.call(value, key)) {
        const v = (value as Record<string, unknown>)[key];
        // `undefined` fields are dropped, as a JSON round trip through any other backend would.
        if (v === undefined) continue;
        // A JSON-parsed `__proto__` key is data; plain assignment would set the copy's prototype instead.
        if (key === '__proto__') Object.defineProperty(out, key, { value: cloneValue(v), enumerable: true, writable: true, configurable: true });
        else out[key] = cloneValue(v);
      }
    }
    return out as T;
  }
  return structuredClone(value);
}
