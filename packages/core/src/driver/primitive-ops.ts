/**
 * The named primitives' items as the guarded compare-and-sets they perform, built from core's `EFFECTS`: a
 * driver that already applies `TransitionOp`s atomically (one synchronous step, one SQL statement, one script)
 * runs `jobCompleteMany` and `jobFailMany` through them and so writes exactly what the effect says.
 */
import { EFFECTS, effectChanges } from '../lifecycle/effects.js';
import { toTimestamp } from '../formats/timestamps.js';
import type { Job } from '../schemas/job.js';
import type { CompleteItem, FailItem, TransitionOp } from './driver.js';
import { noteOf, type TransitionNote } from '../history/job-history.js';

/** What every ACK of one instant writes. Shared by the ops of that instant and frozen (drivers only read ops). */
interface AckParts {
  now: number;
  nowIso: string;
  /** `set` of an ACK without a result. */
  set: Partial<Job>;
  x: TransitionOp['x'];
  /** The history note of an ACK at this instant. */
  note: TransitionNote;
}

/** The parts of the last instant ACKs were made at: ACKs one at a time mostly share a millisecond. */
let lastAckParts: AckParts | undefined;

function ackParts(now: number, nowIso: string): AckParts {
  if (lastAckParts !== undefined && lastAckParts.now === now && lastAckParts.nowIso === nowIso) return lastAckParts;
  const changes = effectChanges(EFFECTS.ack, now, nowIso);
  return (lastAckParts = { now, nowIso, set: Object.freeze(changes.set), x: Object.freeze(changes.x), note: Object.freeze(noteOf(EFFECTS.ack, nowIso)) });
}

const ACK_UNSET: readonly string[] = EFFECTS.ack.unset;
// An ACK with a result writes its stamp as a literal key (completionOp): a computed key gives every such op a
// slower object shape. Checked once here, so the effect and the literal cannot part.
if (EFFECTS.ack.stamp.join() !== 'completed_at')
  throw new Error(`@ojskit/core: completionOp writes completed_at, EFFECTS.ack stamps ${EFFECTS.ack.stamp.join()}`);

/**
 * The compare-and-set of one ACK (`EFFECTS.ack`). Ops of one instant share their `set` (without a result),
 * `unset` and `x` objects, so a driver can tell a batch's common writes by identity.
 * @example completionOp({ id, attempt: 1, result: 42 }, now, nowIso, 'summary').to // 'completed'
 */
export function completionOp(item: CompleteItem, now: number, nowIso: string, returning: 'job' | 'summary'): TransitionOp {
  const parts = ackParts(now, nowIso);
  const op: TransitionOp = {
    id: item.id,
    from: EFFECTS.ack.from,
    to: EFFECTS.ack.to,
    set: 'result' in item ? { completed_at: parts.nowIso, result: item.result } : parts.set,
    unset: ACK_UNSET,
    x: parts.x,
    returning,
    note: parts.note,
  };
  if (item.workerId !== undefined || item.attempt !== undefined) {
    op.expect = {};
    if (item.workerId !== undefined) op.expect.workerId = item.workerId;
    if (item.attempt !== undefined) op.expect.attempt = item.attempt;
  }
  return op;
}

/**
 * The compare-and-set of one failure (`EFFECTS[item.outcome]`), guarded on the attempt and, when given, the
 * worker and the visibility deadline.
 * @example failureOp({ id, outcome: 'retry', attempt: 1, error, errors: [error], retryDelayMs: 1000 }, now, nowIso).to // 'retryable'
 */
export function failureOp(item: FailItem, now: number, nowIso: string): TransitionOp {
  const effect = EFFECTS[item.outcome];
  const changes = effectChanges(effect, now, nowIso);
  const set: Partial<Job> = changes.set;
  const x: NonNullable<TransitionOp['x']> = changes.x;
  if (item.outcome === 'requeue') {
    set.attempt = Math.max(0, item.attempt - 1);
  } else {
    if (item.error !== undefined) set.error = item.error;
    if (item.errors !== undefined) set.errors = item.errors;
  }
  if (item.outcome === 'retry') {
    const delay = item.retryDelayMs ?? 0;
    set.retry_delay_ms = delay;
    set.next_attempt_at = toTimestamp(now + delay);
    x.dueAt = now + delay;
  }
  if (item.outcome === 'discard' || item.outcome === 'reclaimDiscard') x.deadLetter = item.deadLetter === true ? true : null;
  const expect: NonNullable<TransitionOp['expect']> = { attempt: item.attempt };
  if (item.workerId !== undefined) expect.workerId = item.workerId;
  if (item.visibleUntil !== undefined) expect.visibleUntil = item.visibleUntil;
  // The history line's reason: the error's type (its code when it has none), as a failure's event names it.
  const note = noteOf(effect, nowIso, item.error === undefined ? undefined : item.error.type || item.error.code);
  return { id: item.id, from: effect.from, to: effect.to, expect, set, unset: changes.unset, x, note };
}
