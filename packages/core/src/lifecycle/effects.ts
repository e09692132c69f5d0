/**
 * What each transition writes besides the new state, as data: the engine builds its compare-and-sets from it,
 * and adapters render it into Lua and SQL (or apply it in memory) for the moves they make themselves (claim,
 * promotion, expiry, a unique replace), so the three backends cannot drift apart.
 */
import type { JobState } from './states.js';
import { allowedFrom, dispatchAllowedFrom, type Trigger } from './transitions.js';

/**
 * The writes of one transition. Fields are named as stored: envelope fields in snake_case as on the wire,
 * internals (`x`, driver/records.ts `JobInternals`) in camelCase. "The instant" is the primitive's `now`
 * (epoch ms, for internals) and `nowIso` (RFC 3339, for envelope fields).
 */
export interface TransitionEffect {
  /** The trigger of the table rows this effect belongs to. */
  readonly trigger: Trigger;
  /** The new state. */
  readonly to: JobState;
  /** The guard: the states this trigger may move to `to` (`allowedFrom(to, trigger)`). */
  readonly from: readonly JobState[];
  /** Envelope fields set to the instant (`nowIso`). */
  readonly stamp: readonly string[];
  /** Envelope fields removed. */
  readonly unset: readonly string[];
  /** Internal fields set to the instant (`now`). */
  readonly xStamp: readonly string[];
  /** Internal fields removed. */
  readonly xUnset: readonly string[];
  /** Envelope fields set from the primitive's inputs or the job itself (see each effect's doc for the value). */
  readonly assign: readonly string[];
  /** Internal fields set from the primitive's inputs or the job itself (see each effect's doc for the value). */
  readonly xAssign: readonly string[];
  /** `increment`: the transition starts a new attempt (`attempt` + 1). */
  readonly attempt?: 'increment';
}

type EffectSpec = Partial<Omit<TransitionEffect, 'trigger' | 'to' | 'from'>>;

function effect(trigger: Trigger, to: JobState, spec: EffectSpec, table: 'base' | 'dispatch' = 'base'): TransitionEffect {
  const from = table === 'base' ? allowedFrom(to, trigger) : dispatchAllowedFrom(to, trigger);
  if (from.length === 0) throw new Error(`@ojskit/core lifecycle: no row of the table moves to '${to}' by ${trigger}`);
  const frozen = (list: readonly string[] | undefined) => Object.freeze([...(list ?? [])]);
  return Object.freeze({
    trigger,
    to,
    from,
    stamp: frozen(spec.stamp),
    unset: frozen(spec.unset),
    xStamp: frozen(spec.xStamp),
    xUnset: frozen(spec.xUnset),
    assign: frozen(spec.assign),
    xAssign: frozen(spec.xAssign),
    ...(spec.attempt ? { attempt: spec.attempt } : {}),
  });
}

/** The internals only an active job has: its reservation. Every way out of `active` removes them. */
const RESERVATION = ['visibleUntil', 'timeoutAt', 'claimVisibilityMs'] as const;

/** An active job discarded by a failure, a timeout or a lost reservation: `error`, `errors`, and `x.deadLetter` into the DLQ. */
const DISCARDED_AFTER_FAILURE: EffectSpec = {
  stamp: ['completed_at', 'discarded_at'],
  unset: ['worker_id', 'next_attempt_at'],
  xStamp: ['finishedAt'],
  xUnset: RESERVATION,
  assign: ['error', 'errors'],
  xAssign: ['deadLetter'],
};

/**
 * Every transition's effect, by the name of the move. The moves a driver makes on its own (claim, promote,
 * expire, uniqueReplace) are applied by the adapters; the others arrive as `TransitionOp`s the engine builds
 * from these entries (`effectChanges`).
 *
 * @example
 * EFFECTS.claim.stamp // ['started_at']
 * EFFECTS.expire.to   // 'discarded'
 */
export const EFFECTS = Object.freeze({
  /**
   * A claim (`jobClaim`): `worker_id` = the claim's worker; `x.claimVisibilityMs` = the claim's visibility, else
   * the job's `x.visibilityMs`; `x.visibleUntil` = now + `x.claimVisibilityMs`; `x.timeoutAt` = now + `x.timeoutMs`.
   */
  claim: effect('fetch', 'active', {
    stamp: ['started_at'],
    unset: ['next_attempt_at'],
    xUnset: ['progress'],
    assign: ['worker_id'],
    xAssign: ['claimVisibilityMs', 'visibleUntil', 'timeoutAt'],
    attempt: 'increment',
  }),
  /** A due job's promotion (`jobPromote`, and a claim on its way). Entering the ready index draws a new FIFO sequence. */
  promote: effect('timer', 'available', { stamp: ['enqueued_at'] }),
  /** A job past its `expires_at` (`jobExpire`, and a promotion or claim that meets one). */
  expire: effect('expiry', 'discarded', { stamp: ['discarded_at', 'expired_at'], xStamp: ['finishedAt'] }),
  /** ACK: `result` when the worker sent one. */
  ack: effect('ack', 'completed', {
    stamp: ['completed_at'],
    unset: ['error', 'worker_id', 'next_attempt_at'],
    xStamp: ['finishedAt'],
    xUnset: RESERVATION,
    assign: ['result'],
  }),
  /** FAIL with attempts left: `error`, `errors` (history), `retry_delay_ms`, `next_attempt_at`; `x.dueAt` = now + delay. */
  retry: effect('fail', 'retryable', {
    unset: ['worker_id'],
    xUnset: RESERVATION,
    assign: ['error', 'errors', 'retry_delay_ms', 'next_attempt_at'],
    xAssign: ['dueAt'],
  }),
  /** FAIL without a retry: `error`, `errors`; `x.deadLetter` when the job goes to the dead-letter queue. */
  discard: effect('fail', 'discarded', DISCARDED_AFTER_FAILURE),
  /** A job past its visibility deadline, or of a dead worker, back to the queue (the attempt consumed): `error`, `errors`. */
  reclaim: effect('visibility_timeout', 'available', {
    stamp: ['enqueued_at'],
    unset: ['worker_id', 'started_at'],
    xUnset: RESERVATION,
    assign: ['error', 'errors'],
  }),
  /** As `reclaim`, its attempts exhausted: as `discard`. */
  reclaimDiscard: effect('visibility_timeout', 'discarded', DISCARDED_AFTER_FAILURE),
  /** A worker hands a claimed job back (FAIL with `requeue`, or a claim beyond a FETCH's count): `attempt` = its value before the claim. */
  requeue: effect('requeue', 'available', {
    stamp: ['enqueued_at'],
    unset: ['started_at', 'worker_id'],
    xUnset: [...RESERVATION, 'progress'],
    assign: ['attempt'],
  }),
  /** CANCEL. */
  cancel: effect('cancel', 'cancelled', {
    stamp: ['cancelled_at'],
    unset: ['worker_id', 'next_attempt_at'],
    xStamp: ['finishedAt'],
    xUnset: [...RESERVATION, 'dueAt'],
  }),
  /** The job a unique `replace` cancels (`jobInsert`). */
  uniqueReplace: effect('unique_replace', 'cancelled', { stamp: ['cancelled_at'], xStamp: ['finishedAt'] }),
  /** ACTIVATE of a pending job. */
  activate: effect('activate', 'available', { stamp: ['enqueued_at', 'activated_at'] }),
  /** A retry out of the dead-letter queue: `attempt` = 0; the error history is kept. */
  deadLetterRetry: effect('dead_letter_retry', 'available', {
    stamp: ['enqueued_at'],
    unset: ['completed_at', 'discarded_at', 'started_at', 'error', 'retry_delay_ms', 'next_attempt_at', 'worker_id', 'expired_at'],
    xUnset: ['deadLetter', 'finishedAt', 'progress'],
    assign: ['attempt'],
  }),
} satisfies Record<string, TransitionEffect>);

/** The name of an effect. */
export type EffectName = keyof typeof EFFECTS;

/**
 * The effects of the dispatch-log rows (`DISPATCH_TRANSITIONS`), applied only by drivers with
 * `capabilities.dispatchLog`. A dispatched job keeps `x.dispatchedAt` while it is `pending`: that marker, not
 * the state, tells it from a job staged by `pending: true`.
 *
 * @example
 * DISPATCH_EFFECTS.dispatch.from // ['available']
 * DISPATCH_EFFECTS.claim.from    // ['pending']
 */
export const DISPATCH_EFFECTS = Object.freeze({
  /** The log delivered the job: `x.dispatchedAt` = now. */
  dispatch: effect('dispatch', 'pending', { xStamp: ['dispatchedAt'] }, 'dispatch'),
  /** A claim of a dispatched job: as `EFFECTS.claim`, and the dispatch marker removed. */
  claim: effect(
    'fetch',
    'active',
    {
      stamp: EFFECTS.claim.stamp,
      unset: EFFECTS.claim.unset,
      xUnset: [...EFFECTS.claim.xUnset, 'dispatchedAt'],
      assign: EFFECTS.claim.assign,
      xAssign: EFFECTS.claim.xAssign,
      attempt: 'increment',
    },
    'dispatch',
  ),
  /** A dispatched job a claim meets past its `expires_at`: as `EFFECTS.expire`, and the dispatch marker removed. */
  expire: effect('expiry', 'discarded', { stamp: EFFECTS.expire.stamp, xStamp: EFFECTS.expire.xStamp, xUnset: ['dispatchedAt'] }, 'dispatch'),
} satisfies Record<string, TransitionEffect>);

/** An effect's instant-dependent writes, as the parts of a `TransitionOp` (driver/driver.ts). */
export interface EffectChanges {
  set: Record<string, string>;
  unset: string[];
  x: Record<string, number | null>;
}

/**
 * The writes of `effect` at an instant: stamps set to `nowIso`/`now`, removals as `unset` and `x: null`.
 * The caller adds the assigned fields.
 * @example effectChanges(EFFECTS.cancel, 0, '1970-01-01T00:00:00.000Z').set // { cancelled_at: '1970-01-01T00:00:00.000Z' }
 */
export function effectChanges(effect: TransitionEffect, now: number, nowIso: string): EffectChanges {
  const set: Record<string, string> = {};
  for (const field of effect.stamp) set[field] = nowIso;
  const x: Record<string, number | null> = {};
  for (const field of effect.xStamp) x[field] = now;
  for (const field of effect.xUnset) x[field] = null;
  return { set, unset: [...effect.unset], x };
}
