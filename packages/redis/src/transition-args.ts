/** Encodes `TransitionOp`s as the ARGV batch lib/transition.lua reads, and decodes their results. */
import { TRANSITIONS, type JobState, type TransitionNote, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
import { checkHotValue, decodeJob, decodeSummary, encodeEnvelopeValue, encodeInternalValue, envelopeField, hotRank, SEALED } from './codec.js';

/** Envelope keys a transition never writes or removes: they identify the job, or `to` sets them. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

/** Sealed fields live inside `@e`, which a script cannot edit: a transition removing one is a driver bug. */
function refuseSealed(key: string): void {
  if (SEALED.has(key)) throw new Error(`@ojskit/redis: a transition cannot remove '${key}', which is fixed at insert (sealed in '@e').`);
}

/** `value`, checked when the field is packed in `@h` (codec.ts HOT_FIELDS). */
function packable(field: string, value: string): string {
  if (hotRank(field) !== undefined) checkHotValue(field, value);
  return value;
}

/**
 * The part of an op that ops of a batch usually share (see lib/transition.lua). `perOp`: a `set` key left out,
 * because the caller sends its value with each op (a completion's result).
 */
export function opShape(op: TransitionOp, perOp?: string): Array<string | number> {
  const dl = op.expect?.deadLetter;
  const set: string[] = [];
  const del: string[] = [];
  if (op.set) {
    for (const [key, value] of Object.entries(op.set)) {
      if (PROTECTED_KEYS.has(key) || key === perOp) continue;
      const encoded = encodeEnvelopeValue(key, value);
      if (encoded === undefined) {
        refuseSealed(key);
        del.push(envelopeField(key));
      } else set.push(envelopeField(key), packable(envelopeField(key), encoded));
    }
  }
  for (const key of op.unset ?? []) {
    if (PROTECTED_KEYS.has(key)) continue;
    refuseSealed(key);
    del.push(envelopeField(key));
  }
  if (op.x) {
    for (const [key, value] of Object.entries(op.x)) {
      if (value === undefined) continue;
      const encoded = encodeInternalValue(key, value);
      if (encoded === undefined) del.push(`@${key}`);
      else set.push(`@${key}`, packable(`@${key}`, encoded));
    }
  }
  return [`,${op.from.join(',')},`, op.to, dl === undefined ? '' : dl ? '1' : '0', op.returning ?? 'job', set.length / 2, ...set, del.length, ...del];
}

/** How a script reads a batch of ops: each op's shape, when two ops share one, and each op's own arguments. */
export interface BatchLayout {
  shape(op: TransitionOp): Array<string | number>;
  sameShape(a: TransitionOp, b: TransitionOp): boolean;
  /** Appends the op's own arguments, `shape` being its shape's 1-based number. */
  pushOp(op: TransitionOp, shape: number, out: Array<string | number>): void;
}

/**
 * Appends a batch of ops to `out`: the number of distinct shapes and the shapes, then the number of ops and
 * each op's arguments, so that what the ops of a batch share (every ACK of one instant writes the same fields)
 * travels once. Each op is compared with the one before: cheaper than encoding a shape per op.
 */
export function pushShapedBatch(ops: readonly TransitionOp[], out: Array<string | number>, layout: BatchLayout): void {
  const shapes: Array<Array<string | number>> = [];
  const opArgs: Array<string | number> = [];
  let previous: TransitionOp | undefined;
  let n = 0;
  for (const op of ops) {
    if (!previous || !layout.sameShape(previous, op)) {
      const shape = layout.shape(op);
      n = findShape(shapes, shape);
      if (n === 0) n = shapes.push(shape);
    }
    previous = op;
    layout.pushOp(op, n, opArgs);
  }
  out.push(shapes.length);
  for (const shape of shapes) for (const a of shape) out.push(a);
  out.push(ops.length);
  for (const a of opArgs) out.push(a);
}

/**
 * The note of an op that changes state without one (the engine sets one on each; a caller of the driver alone
 * may not): the trigger of the table's first row into `to` from a state the op allows, no instant.
 */
function noteFor(op: TransitionOp): TransitionNote {
  if (op.note !== undefined) return op.note;
  const row = TRANSITIONS.find((t) => t.to === op.to && t.from !== null && op.from.includes(t.from));
  return { at: '', trigger: row?.trigger ?? 'push' };
}

/**
 * Appends a batch of ops to `out` as lib/transition.lua reads it: per op its id, guards, shape number, the
 * queue the op names or `queueOf` last saw the job in (a hint: the script looks the job up by id when it is not
 * there) and its
 * history note (at, trigger, reason or false).
 */
export function pushTransitionBatch(
  ops: readonly TransitionOp[],
  out: Array<string | number>,
  queueOf: (id: string) => string | undefined = () => undefined,
): void {
  pushShapedBatch(ops, out, {
    shape: (op) => opShape(op),
    sameShape: sameShapeValues,
    pushOp: (op, n, args) => {
      const expect = op.expect;
      const note = noteFor(op);
      args.push(op.id, expect?.attempt ?? '', expect?.workerId ?? '', expect?.visibleUntil ?? '', n, op.queue ?? queueOf(op.id) ?? '', note.at, note.trigger);
      // false, not absent: cjson hands Lua false for it, and every op has the same number of arguments
      (args as unknown[]).push(note.reason ?? false);
    },
  });
}

/** Whether two ops have the same shape for sure: the values behind it are the same, key order included. */
function sameShapeValues(a: TransitionOp, b: TransitionOp): boolean {
  return (
    a.to === b.to &&
    a.returning === b.returning &&
    a.expect?.deadLetter === b.expect?.deadLetter &&
    sameList(a.from, b.from) &&
    sameList(a.unset, b.unset) &&
    sameEntries(a.set, b.set) &&
    sameEntries(a.x, b.x)
  );
}

export function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Same keys in the same order with the same values (Object.is: -0 is stored apart from 0), the key `skip`
 * left out of the comparison.
 */
export function sameEntries(a: object | undefined, b: object | undefined, skip?: string): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  for (let i = 0, j = 0; ; i++, j++) {
    if (keys[i] === skip) i++;
    if (other[j] === skip) j++;
    if (i >= keys.length || j >= other.length) return i >= keys.length && j >= other.length;
    const key = keys[i]!;
    if (key !== other[j] || !Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
}

/** 1-based number of an equal shape among the last few (ops with results of their own never share one), else 0. */
function findShape(shapes: ReadonlyArray<ReadonlyArray<string | number>>, shape: ReadonlyArray<string | number>): number {
  for (let i = shapes.length - 1; i >= Math.max(0, shapes.length - 4); i--) if (sameArgs(shapes[i]!, shape)) return i + 1;
  return 0;
}

function sameArgs(a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Decodes one `{1|0, state, fields}` reply. */
export function decodeTransitionReply(reply: unknown, op: TransitionOp): TransitionResult {
  // JSON replies (packed scripts) carry false where RESP would carry nil
  const [ok, state, fields] = reply as [number, string | null | false, string[] | undefined];
  if (ok === 1) {
    const from = state as JobState;
    if (op.returning === 'summary') return { ok: true, from, summary: decodeSummary(fields as Array<string | null>) };
    return { ok: true, from, job: decodeJob(fields!) };
  }
  if (state === null || state === undefined || state === false) return { ok: false, state: null };
  return fields ? { ok: false, state: state as JobState, job: decodeJob(fields) } : { ok: false, state: state as JobState };
}
