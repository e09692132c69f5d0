/**
 * Age boost (priority aging), written once: the memory claim runs `ageBoostRank`, the Redis claim script and the
 * PostgreSQL claim statement render `ageBoostRankExpression` (spec/admin.md, "Age boost").
 *
 * A queue configured with `age_boost: { interval_ms: I }` claims its available jobs by
 *
 *     rank = enqueued_ms − priority × I        (smaller first; equal ranks by the FIFO sequence)
 *
 * where `enqueued_ms` is when the job last entered `available` (its `enqueued_at`). Each priority step is worth
 * `I` of waiting, so a job of priority p is never passed by a job enqueued more than (MAX_PRIORITY − p) × I after
 * it: once it has waited that long, every job still ahead of it was already there, and those drain. The rank is
 * computed by the claim from the queue's setting at that moment (never stored): changing or removing the setting
 * reorders the whole backlog at once, jobs already queued included. Within one priority, order stays FIFO.
 */
import { MAX_PRIORITY } from '../schemas/patterns.js';

/** Shortest interval accepted (ms). */
export const AGE_BOOST_MIN_INTERVAL_MS = 1;
/**
 * Longest interval accepted (ms, 30 days): 200 priority steps of it stay far inside the exact integers of a
 * double (ranks are compared as doubles in Lua and as float8 in SQL).
 */
export const AGE_BOOST_MAX_INTERVAL_MS = 30 * 86_400_000;

/** A queue's age boost as stored in its configuration (`QueueConfigRecord.age_boost`). */
export interface AgeBoost {
  /** How much waiting one priority step is worth (ms). */
  interval_ms: number;
}

/**
 * The claim rank of an available job in a queue with an age boost: smaller is claimed first.
 * @example ageBoostRank(1_000, 2, 300) // 400: ahead of a priority-0 job enqueued at 500
 */
export function ageBoostRank(enqueuedMs: number, priority: number, intervalMs: number): number {
  return enqueuedMs - priority * intervalMs;
}

/**
 * The same rank as an expression over three operand texts: the operators it uses read the same in Lua and in
 * SQL, so the Redis script and the PostgreSQL statement render it from here (each parenthesises its operands).
 * @example ageBoostRankExpression('e', 'p', 'i') // '(e - p * i)'
 */
export function ageBoostRankExpression(enqueuedMs: string, priority: string, intervalMs: string): string {
  return `(${enqueuedMs} - ${priority} * ${intervalMs})`;
}

/**
 * The longest a job of `priority` can be passed by jobs enqueued after it, in a queue aging by `intervalMs`: the
 * bound the contract checks.
 * @example ageBoostBoundMs(-10, 1000) // 110000
 */
export function ageBoostBoundMs(priority: number, intervalMs: number): number {
  return (MAX_PRIORITY - priority) * intervalMs;
}

/** The interval of a queue's configuration, or undefined when it does not age. */
export function ageBoostIntervalOf(record: { age_boost?: AgeBoost } | null | undefined): number | undefined {
  return record?.age_boost?.interval_ms;
}
