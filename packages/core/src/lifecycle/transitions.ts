/** The OJS transition table as data: the single source of truth for which state changes are legal. */
import { OjsError } from '../errors/ojs-error.js';
import { type JobState } from './states.js';

/** What causes a transition. */
export type Trigger =
  | 'push'
  | 'timer'
  | 'activate'
  | 'fetch'
  | 'expiry'
  | 'ack'
  | 'fail'
  | 'requeue'
  | 'visibility_timeout'
  | 'execution_timeout'
  | 'worker_death'
  | 'cancel'
  | 'dead_letter_retry'
  | 'unique_replace'
  | 'dispatch';

/** One row of the table. `from: null` is the creation of a job. `rule` is the row number in the protocol's lifecycle. */
export interface Transition {
  readonly rule: number;
  readonly from: JobState | null;
  readonly to: JobState;
  readonly trigger: Trigger;
}

const row = (rule: number, from: JobState | null, trigger: Trigger, to: JobState): Transition => ({ rule, from, to, trigger });

/** Every legal transition. Anything not listed here must be refused by every backend. */
export const TRANSITIONS: readonly Transition[] = [
  row(1, null, 'push', 'available'),
  row(2, null, 'push', 'scheduled'),
  row(3, null, 'push', 'pending'),
  row(4, 'scheduled', 'timer', 'available'),
  row(5, 'pending', 'activate', 'available'),
  row(6, 'available', 'fetch', 'active'),
  row(7, 'available', 'expiry', 'discarded'),
  row(8, 'active', 'ack', 'completed'),
  row(9, 'active', 'fail', 'retryable'),
  row(10, 'active', 'fail', 'discarded'),
  row(11, 'active', 'requeue', 'available'),
  row(12, 'active', 'visibility_timeout', 'available'),
  row(12, 'active', 'worker_death', 'available'),
  row(13, 'active', 'visibility_timeout', 'discarded'),
  row(13, 'active', 'worker_death', 'discarded'),
  row(14, 'active', 'execution_timeout', 'retryable'),
  row(14, 'active', 'execution_timeout', 'discarded'),
  row(15, 'active', 'cancel', 'cancelled'),
  row(16, 'retryable', 'timer', 'available'),
  row(17, 'scheduled', 'cancel', 'cancelled'),
  row(17, 'available', 'cancel', 'cancelled'),
  row(17, 'pending', 'cancel', 'cancelled'),
  row(17, 'retryable', 'cancel', 'cancelled'),
  row(18, 'scheduled', 'expiry', 'discarded'),
  row(18, 'retryable', 'expiry', 'discarded'),
  row(19, 'discarded', 'dead_letter_retry', 'available'),
  row(20, 'scheduled', 'unique_replace', 'cancelled'),
  row(20, 'available', 'unique_replace', 'cancelled'),
  row(20, 'pending', 'unique_replace', 'cancelled'),
  row(20, 'retryable', 'unique_replace', 'cancelled'),
  row(20, 'active', 'unique_replace', 'cancelled'),
];

/**
 * An ojskit extension (not in the OJS protocol): the rows only a driver that dispatches through a log applies
 * (`DriverCapabilities.dispatchLog`, the Kafka adapter). There `pending` is also the state of a job the log
 * delivered and no worker took yet: the dispatcher moves it `available → pending`, a claim `pending → active`,
 * and a claim that meets it past its `expires_at` discards it. Such a job carries `x.dispatchedAt`, which a job
 * staged by `pending: true` never has, so ACTIVATE still applies only to staged jobs. Every other driver
 * refuses these rows, and the sets and roles below (`STATE_SETS`, `STATE_ROLES`) are derived from
 * `TRANSITIONS` alone.
 */
export const DISPATCH_TRANSITIONS: readonly Transition[] = [
  row(21, 'available', 'dispatch', 'pending'),
  row(22, 'pending', 'fetch', 'active'),
  row(23, 'pending', 'expiry', 'discarded'),
];

/** What a driver offers of the table: `dispatchLog` adds `DISPATCH_TRANSITIONS`. */
export interface TableOptions {
  dispatchLog?: boolean;
}

/**
 * The rows a driver with these capabilities applies.
 * @example transitionTable({ dispatchLog: true }).length // TRANSITIONS.length + DISPATCH_TRANSITIONS.length
 */
export function transitionTable(options: TableOptions = {}): readonly Transition[] {
  return options.dispatchLog === true ? WITH_DISPATCH : TRANSITIONS;
}

const WITH_DISPATCH: readonly Transition[] = Object.freeze([...TRANSITIONS, ...DISPATCH_TRANSITIONS]);

/**
 * True when the table has a row `from → to` (for the given trigger, when one is named).
 * @example canTransition('active', 'completed') // true
 */
export function canTransition(from: JobState | null, to: JobState, trigger?: Trigger, options?: TableOptions): boolean {
  return transitionTable(options).some((t) => t.from === from && t.to === to && (trigger === undefined || t.trigger === trigger));
}

/**
 * Throws a `409 conflict` OjsError unless `from → to` is in the table.
 * @example assertTransition('completed', 'active') // throws OjsError(conflict)
 */
export function assertTransition(from: JobState | null, to: JobState, trigger?: Trigger, jobId?: string, options?: TableOptions): void {
  if (canTransition(from, to, trigger, options)) return;
  throw OjsError.conflict(`Cannot move job${jobId ? ` '${jobId}'` : ''} from '${from ?? 'new'}' to '${to}'${trigger ? ` by ${trigger}` : ''}.`, {
    ...(jobId ? { job_id: jobId } : {}),
    current_state: from,
    target_state: to,
  });
}

/**
 * The from-states a trigger may move to `to`: the guard set adapters put in their compare-and-set.
 * @example allowedFrom('cancelled', 'cancel') // ['active','scheduled','available','pending','retryable']
 */
export function allowedFrom(to: JobState, trigger: Trigger): readonly JobState[] {
  // Every ACK, cancel and retry asks: the answer is computed once per pair and shared (hence frozen).
  let byTrigger = allowedFromCache.get(to);
  if (byTrigger === undefined) allowedFromCache.set(to, (byTrigger = new Map()));
  let states = byTrigger.get(trigger);
  if (states === undefined) {
    const found = new Set<JobState>();
    for (const t of TRANSITIONS) if (t.to === to && t.trigger === trigger && t.from !== null) found.add(t.from);
    byTrigger.set(trigger, (states = Object.freeze([...found])));
  }
  return states;
}

const allowedFromCache = new Map<JobState, Map<Trigger, readonly JobState[]>>();

/**
 * The from-states of the dispatch-log rows that move to `to` by `trigger` (`DISPATCH_TRANSITIONS`).
 * @example dispatchAllowedFrom('active', 'fetch') // ['pending']
 */
export function dispatchAllowedFrom(to: JobState, trigger: Trigger): readonly JobState[] {
  return DISPATCH_TRANSITIONS.filter((t) => t.to === to && t.trigger === trigger && t.from !== null).map((t) => t.from!);
}

/** Every trigger that appears in the table. */
export const TRIGGERS: readonly Trigger[] = [...new Set(TRANSITIONS.map((t) => t.trigger))];
