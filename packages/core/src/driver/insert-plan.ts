/**
 * The decision half of `Driver.jobInsert`, written once for every adapter: which jobs of a batch are
 * stored, which clash on their id, which unique-key conflict aborts the batch, reports an existing job
 * instead, or cancels the job it replaces. The adapter supplies the lookups and its own copies through an
 * {@link InsertPlanPort} and then writes what the plan says; the planner itself writes nothing to a store.
 */
import { STATE_ROLES, STATE_SETS } from '../lifecycle/sets.js';
import type { JobState } from '../lifecycle/states.js';
import type { Job } from '../schemas/job.js';
import { DEFAULT_UNIQUE_STATES } from '../unique/policy.js';
import type { InsertConflict } from './driver.js';
import type { StoredJob } from './records.js';

/** States a unique `replace` may cancel: the transition table's `unique_replace` rows. */
export const UNIQUE_REPLACEABLE_STATES: ReadonlySet<JobState> = new Set(STATE_SETS.uniqueReplaceable);

/** `STATE_SETS.timedOnInsert`, as a set. */
const TIMED_ON_INSERT: ReadonlySet<JobState> = new Set(STATE_SETS.timedOnInsert);

/**
 * `abort`: a duplicate id or a `reject` conflict aborts the batch (`jobInsert`).
 * `skip`: both skip the job instead (`workflowSave`, whose job inserts are idempotent re-drives).
 */
export type InsertConflictMode = 'abort' | 'skip';

/**
 * What the planner needs from the store during one plan. `H` is the adapter's record of a stored job and
 * `S` its record of a job this plan stages (the memory driver uses its table entry for both; the Postgres
 * driver a fetched row and a staged row).
 */
export interface InsertPlanPort<H extends StoredJob, S extends H> {
  /** The job holding `id`, stored or staged by this plan (see `stage`), if any. */
  jobWithId(id: string): Job | undefined;
  /**
   * The stored jobs holding unique key `key`, oldest first; `undefined` for none. Jobs staged by this plan
   * are not expected here: the planner tracks those itself.
   */
  storedHolders(key: string): Iterable<H> | undefined;
  /**
   * The adapter's own copy of `source`, made before its conflicts are decided (the copy may not be staged).
   * The planner may change the copy's `job` and `x` before staging it: a `replace_except_schedule` sets
   * `scheduled_at`, `state` and `x.dueAt`, and clears `enqueued_at` by assigning `undefined`, never by
   * `delete`, so an adapter's objects keep the shape it gave them.
   */
  copy(source: StoredJob): S;
  /** Registers a copy the plan stores, so that `jobWithId` finds its id from now on. */
  stage(staged: S): void;
}

/** What happens to one job of the batch (one step per input job, in input order). */
export type InsertDecision<H, S extends H> =
  /**
   * Store `staged`, after cancelling `replace` when set: a stored job, or a job staged earlier in this plan
   * (whose own step comes first). A `replace` whose match is already terminal (a key blocking in
   * `completed`, say) cancels nothing: the table has no such row. `rescheduled`: the staged job took the
   * schedule of the job it replaces (`replace_except_schedule`), so it differs from its input.
   */
  | { kind: 'insert'; staged: S; replace: H | undefined; rescheduled: boolean }
  /** Store nothing; report `match` (stored, or staged earlier in this plan). */
  | { kind: 'existing'; match: H }
  /** Store nothing, report nothing (skip mode: workflow re-drives). */
  | { readonly kind: 'skip' };

/**
 * A plan: every step, or the abort. An aborted plan lists the steps decided before the failing job, so an
 * adapter that staged into its live table can take them back out; `result` is what `jobInsert` returns.
 */
export type InsertPlan<H, S extends H> = { ok: true; steps: InsertDecision<H, S>[] } | { ok: false; steps: InsertDecision<H, S>[]; result: InsertConflict };

const SKIP = { kind: 'skip' } as const;

/**
 * Plans an insert of `input` at `now` against the store behind `port`, following `Driver.jobInsert`:
 * per job, a duplicate id (stored or earlier in the batch) aborts or skips; a job with `x.uniqueKey` is
 * checked against the first job holding that key (stored ones first, then earlier ones of the batch)
 * whose state is in the job's `x.uniqueStates` and whose `x.uniqueUntil` has not passed, counting the
 * jobs this plan already replaces as `cancelled`; `x.uniqueOnConflict` (default `reject`) then decides.
 *
 * @example
 * const plan = planInsert(params.jobs, params.now, port, 'abort');
 * if (!plan.ok) return plan.result;
 * for (const step of plan.steps) if (step.kind === 'insert') write(step.staged, step.replace);
 */
export function planInsert<H extends StoredJob, S extends H>(
  input: readonly StoredJob[],
  now: number,
  port: InsertPlanPort<H, S>,
  mode: InsertConflictMode,
): InsertPlan<H, S> {
  const steps: InsertDecision<H, S>[] = [];
  // Made on the first unique key: most jobs carry none, and most inserts are of one job.
  let stagedByKey: Map<string, S[]> | undefined;
  /** Ids, stored or staged, that this plan moves to `cancelled`. */
  let cancelled: Set<string> | undefined;

  for (let index = 0; index < input.length; index++) {
    const source = input[index]!;
    const clash = port.jobWithId(source.job.id);
    if (clash !== undefined) {
      if (mode === 'skip') {
        steps.push(SKIP);
        continue;
      }
      return { ok: false, steps, result: { ok: false, index, reason: 'duplicate_id', existing: clash } };
    }
    const staged = port.copy(source);
    let replace: H | undefined;
    let rescheduled = false;
    const key = source.x.uniqueKey;
    if (key !== undefined) {
      stagedByKey ??= new Map();
      cancelled ??= new Set();
      const match = findBlocking(source, now, port.storedHolders(key), stagedByKey.get(key), cancelled);
      if (match !== undefined) {
        const policy = source.x.uniqueOnConflict ?? 'reject';
        if (policy === 'reject') {
          if (mode === 'skip') {
            steps.push(SKIP);
            continue;
          }
          return { ok: false, steps, result: { ok: false, index, reason: 'unique', existing: match.job } };
        }
        if (policy === 'ignore') {
          steps.push({ kind: 'existing', match });
          continue;
        }
        if (UNIQUE_REPLACEABLE_STATES.has(stateIn(match, cancelled))) {
          replace = match;
          cancelled.add(match.job.id);
        }
        const scheduledAt = match.job.scheduled_at;
        if (policy === 'replace_except_schedule' && scheduledAt !== undefined && TIMED_ON_INSERT.has(source.job.state)) {
          const { job, x } = staged;
          job.scheduled_at = scheduledAt;
          job.state = STATE_ROLES.scheduled;
          job.enqueued_at = undefined;
          // A promoted match keeps its dueAt; the parse covers a match stored without one.
          x.dueAt = match.x.dueAt ?? Date.parse(scheduledAt);
          rescheduled = true;
        }
      }
    }
    port.stage(staged);
    if (key !== undefined) {
      const list = stagedByKey!.get(key);
      if (list === undefined) stagedByKey!.set(key, [staged]);
      else list.push(staged);
    }
    steps.push({ kind: 'insert', staged, replace, rescheduled });
  }
  return { ok: true, steps };
}

/** A holder's state as this plan leaves it: `cancelled` once a `replace` in the plan cancels it. */
function stateIn(holder: StoredJob, cancelled: ReadonlySet<string>): JobState {
  return cancelled.has(holder.job.id) ? STATE_ROLES.cancelled : holder.job.state;
}

/** The first holder of the job's key (stored, then staged) that blocks `source` at `now`. */
function findBlocking<H extends StoredJob>(
  source: StoredJob,
  now: number,
  stored: Iterable<H> | undefined,
  staged: readonly H[] | undefined,
  cancelled: ReadonlySet<string>,
): H | undefined {
  // A job with a key but no states (the engine always sets them) blocks in the engine's default states.
  const states = source.x.uniqueStates ?? DEFAULT_UNIQUE_STATES;
  if (stored !== undefined) for (const holder of stored) if (blocks(holder, states, now, cancelled)) return holder;
  if (staged !== undefined) for (const holder of staged) if (blocks(holder, states, now, cancelled)) return holder;
  return undefined;
}

function blocks(holder: StoredJob, states: readonly JobState[], now: number, cancelled: ReadonlySet<string>): boolean {
  return states.includes(stateIn(holder, cancelled)) && (holder.x.uniqueUntil === undefined || holder.x.uniqueUntil > now);
}
