/**
 * The state sets and state roles every backend needs, derived from the transition table: adapters render
 * or read these instead of naming states, so a change to the table reaches every index, guard and script.
 */
import { JOB_STATES, NON_TERMINAL_STATES, TERMINAL_STATES, type JobState } from './states.js';
import { TRANSITIONS, type Trigger } from './transitions.js';

/** The from-states of a trigger's rows, in lifecycle order. */
function fromStates(trigger: Trigger): JobState[] {
  return JOB_STATES.filter((s) => TRANSITIONS.some((t) => t.trigger === trigger && t.from === s));
}

/** The to-states of a trigger's rows (from an existing job), in lifecycle order. */
function toStates(trigger: Trigger, from?: JobState | null): JobState[] {
  return JOB_STATES.filter((s) => TRANSITIONS.some((t) => t.trigger === trigger && t.to === s && (from === undefined ? t.from !== null : t.from === from)));
}

/** The one state of a set that must hold exactly one: a table that breaks this breaks the adapters' layout. */
function only(states: readonly JobState[], what: string): JobState {
  if (states.length !== 1) throw new Error(`@ojskit/core lifecycle: ${what} must be exactly one state, the table gives [${states.join(', ')}]`);
  return states[0]!;
}

const due = fromStates('timer');
const promoted = only(toStates('timer'), "the timer's target state");
const created = toStates('push', null);

/**
 * Sets of states by what a backend does with them. Each is in lifecycle order (JOB_STATES) and frozen.
 *
 * @example
 * STATE_SETS.due // ['scheduled', 'retryable']: indexed by x.dueAt, promoted by the timer
 * `state IN (${STATE_SETS.expirable.map((s) => `'${s}'`).join(', ')})`
 */
export const STATE_SETS = Object.freeze({
  /** Promoted by time (the `timer` trigger): indexed by `x.dueAt`, moved by `jobPromote` and a claim. */
  due: Object.freeze(due),
  /** Where a claim takes jobs from (`fetch`): indexed by priority, then FIFO sequence. */
  claimable: Object.freeze(fromStates('fetch')),
  /** A queue's backlog, what a backpressure bound (`max_depth`) limits: jobs waiting to run, neither held nor finished. */
  backlog: Object.freeze(NON_TERMINAL_STATES.filter((s) => !fromStates('visibility_timeout').includes(s))),
  /** Where `x.expiresAt` is enforced (`expiry`): indexed by `x.expiresAt`, moved by `jobExpire`. */
  expirable: Object.freeze(fromStates('expiry')),
  /** Held by a worker, rescued when overdue (`visibility_timeout`): indexed by `min(x.visibleUntil, x.timeoutAt)`. */
  held: Object.freeze(fromStates('visibility_timeout')),
  /** Never left by themselves: indexed by `x.finishedAt` for retention. */
  terminal: Object.freeze([...TERMINAL_STATES]),
  /** What a CANCEL may move. */
  cancellable: Object.freeze(fromStates('cancel')),
  /** What a unique `replace` may cancel. */
  uniqueReplaceable: Object.freeze(fromStates('unique_replace')),
  /** The states in which an existing job blocks a new one with the same unique key, unless the policy names others. */
  uniqueBlocking: Object.freeze([...NON_TERMINAL_STATES]),
  /**
   * States a new job is created in whose start is set by time (created in a due state, or ready at once):
   * under `replace_except_schedule` such a job takes the schedule of the job it replaces.
   */
  timedOnInsert: Object.freeze(created.filter((s) => due.includes(s) || s === promoted)),
} satisfies Record<string, readonly JobState[]>);

/** The name of a state set. */
export type StateSetName = keyof typeof STATE_SETS;

/**
 * Single states by the role they play in a primitive: what a claim makes of a job, where the timer moves it…
 *
 * @example
 * STATE_ROLES.claimed // 'active'
 */
export const STATE_ROLES = Object.freeze({
  /** Where a claim takes jobs from. */
  claimable: only(fromStates('fetch'), 'the claimable state'),
  /** What a claim makes of a job. */
  claimed: only(toStates('fetch'), "a claim's target state"),
  /** Where the timer moves a due job. */
  promoted,
  /** Where expiry moves a job. */
  expired: only(toStates('expiry'), "expiry's target state"),
  /** Where an ACK moves a job. */
  completed: only(toStates('ack'), "an ACK's target state"),
  /** Where a CANCEL (or a unique `replace`) moves a job. */
  cancelled: only(toStates('cancel'), "a cancel's target state"),
  /** The state the dead-letter queue holds its jobs in (what a dead-letter retry starts from). */
  deadLetter: only(fromStates('dead_letter_retry'), 'the dead-letter state'),
  /** The state a new job waits for its time in. */
  scheduled: only(
    created.filter((s) => due.includes(s)),
    'the state a job is created in to wait for its time',
  ),
  /** The state a new job waits for an ACTIVATE in. */
  pending: only(fromStates('activate'), 'the state a job waits for activation in'),
} satisfies Record<string, JobState>);

/** The name of a state role. */
export type StateRoleName = keyof typeof STATE_ROLES;

/** Which index (driver.ts, "Index rules") a state's jobs live in; `none` for a state with no ordering (pending). */
export type StateIndex = 'ready' | 'due' | 'deadline' | 'finished' | 'none';

/**
 * Each state's index, from the sets above.
 * @example STATE_INDEX.retryable // 'due'
 */
export const STATE_INDEX: Readonly<Record<JobState, StateIndex>> = Object.freeze(
  Object.fromEntries(
    JOB_STATES.map((s): [JobState, StateIndex] => [
      s,
      STATE_SETS.claimable.includes(s)
        ? 'ready'
        : due.includes(s)
          ? 'due'
          : STATE_SETS.held.includes(s)
            ? 'deadline'
            : TERMINAL_STATES.includes(s)
              ? 'finished'
              : 'none',
    ]),
  ) as Record<JobState, StateIndex>,
);
