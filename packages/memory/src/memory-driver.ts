/** MemoryDriver: the ojskit Driver held in process memory, the reference backend. */
import { OjsError, type Job } from '@ojskit/core';
import {
  ageBoostIntervalOf,
  type PruneParams,
  completionOp,
  EFFECTS,
  failureOp,
  historyEntry,
  noteOf,
  queueRecordsHistory,
  STATE_ROLES,
  STATE_SETS,
  summarize,
  TRANSITIONS,
  checkDepthBounds,
  queueClaimLimitOf,
  type ClaimParams,
  type ClaimResult,
  type CompleteManyParams,
  type CronRecord,
  type Driver,
  type DriverCapabilities,
  type FailManyParams,
  type HeartbeatParams,
  type HeartbeatResult,
  type InsertConflictMode,
  type InsertOutcome,
  type InsertParams,
  type InsertConflict,
  type InsertResult,
  type JobHistory,
  type JobInternals,
  type JobListParams,
  type JobState,
  type JobSummary,
  type QueueConfigRecord,
  type QueueRecord,
  type RateLimitState,
  type StoredJob,
  type TransitionNote,
  type TransitionOp,
  type TransitionResult,
  type WorkerRecord,
  type WorkflowRecord,
} from '@ojskit/core/driver';
import { agedRank } from './age-boost.js';
import { applyEffect } from './apply-effect.js';
import { cloneValue, copyStoredJob } from './clone.js';
import { MemoryInsertPort } from './insert-plan.js';
import type { JobEntry } from './job-entry.js';
import { JobStore } from './job-store.js';
import { JobHistoryLog } from './job-history-log.js';
import type { QueueState } from './queue-state.js';
import { zeroCounts } from './state-counts.js';
import { MemoryRateLimits } from './rate-limits.js';

/** The transition table as from → to-states; the driver refuses any other change of state. */
const LEGAL = new Map<JobState, Set<JobState>>();
for (const t of TRANSITIONS) {
  if (t.from === null) continue;
  let to = LEGAL.get(t.from);
  if (to === undefined) LEGAL.set(t.from, (to = new Set()));
  to.add(t.to);
}

/** What jobClaim writes, field by field (see there): the driver refuses to load when core's EFFECTS.claim says otherwise. */
const CLAIM_WRITES = {
  to: STATE_ROLES.claimed,
  stamp: ['started_at'],
  unset: ['next_attempt_at'],
  xStamp: [],
  xUnset: ['progress'],
  assign: ['worker_id'],
  xAssign: ['claimVisibilityMs', 'visibleUntil', 'timeoutAt'],
  attempt: 'increment',
};
{
  const { trigger: _trigger, from: _from, ...claim } = EFFECTS.claim;
  if (JSON.stringify(claim) !== JSON.stringify(CLAIM_WRITES)) {
    throw new Error(`@ojskit/memory: jobClaim writes ${JSON.stringify(CLAIM_WRITES)}; core's EFFECTS.claim is ${JSON.stringify(claim)}: update jobClaim`);
  }
}
const CLAIMED = EFFECTS.claim.to;

/** States whose jobs a heartbeat extends. */
const HELD: ReadonlySet<JobState> = new Set(STATE_SETS.held);

/** Envelope keys a transition may not write or remove: they identify the job or are set by `to`. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

/**
 * How many due jobs one claim promotes per queue beyond its own limit. A claim runs synchronously, so a
 * queue with a million jobs due at once would otherwise stall the process for seconds inside one fetch;
 * the promoter service (and the next claims) move the rest in due order.
 */
const INLINE_PROMOTION_SLACK = 10_000;

const CAPABILITIES: DriverCapabilities = Object.freeze({
  transactionalEnqueue: false,
  crossProcessEvents: false,
  uniqueStrength: 'strong',
  durable: false,
  // Every method acts when called, before its promise settles.
  orderedCalls: true,
  history: true,
  rateLimiting: true,
});

/** The trigger of the table's row `from → to` when the engine sent no note (the first such row). */
function inferredNote(from: JobState, to: JobState, job: Job): TransitionNote {
  const row = TRANSITIONS.find((t) => t.from === from && t.to === to);
  return { at: job.enqueued_at ?? job.created_at, trigger: row?.trigger ?? 'push' };
}

/**
 * The in-process driver. Every method runs to completion synchronously before its promise settles,
 * so each is atomic in a single-threaded runtime with no locks.
 *
 * Stored state is private: every job, record and document is copied on the way in and on the way out
 * (see clone.ts for why a hand-written copy rather than `structuredClone`), so a caller mutating what it
 * passed or what it got back never changes what is stored.
 *
 * Not durable and not shared between processes: for tests, development and single-process apps.
 *
 * @example
 * const engine = new Engine({ driver: new MemoryDriver() });
 */
export class MemoryDriver implements Driver {
  readonly name = 'memory';
  readonly capabilities: DriverCapabilities = CAPABILITIES;

  private readonly store = new JobStore();
  private readonly insertPort = new MemoryInsertPort(this.store.jobs, this.store.unique);
  private readonly workers = new Map<string, WorkerRecord>();
  private readonly queueConfigs = new Map<string, QueueConfigRecord>();
  private readonly crons = new Map<string, CronRecord>();
  private readonly workflows = new Map<string, WorkflowRecord>();
  private readonly leases = new Map<string, { owner: string; until: number }>();
  private readonly rateLimits = new MemoryRateLimits((entry) => this.store.jobs.get(entry.job.id) === entry);

  // ---------------------------------------------------------------- jobs

  async jobInsert(params: InsertParams): Promise<InsertResult> {
    const bounds = params.bounds === 'stored' ? this.storedBounds(params.jobs) : params.bounds;
    const bounded = bounds === undefined ? undefined : checkDepthBounds(params.jobs, bounds, this.backlogDepths(bounds));
    if (bounded !== undefined && !bounded.ok) return bounded;
    const outcomes = this.insert(params.jobs, params.now, params.nowIso, 'abort');
    if (!Array.isArray(outcomes)) return outcomes;
    return bounded === undefined ? { ok: true, outcomes } : { ok: true, outcomes, depths: this.backlogDepths(bounds!) };
  }

  /** The `max_depth` of each bounded queue of these jobs, from the stored configurations (`bounds: 'stored'`). */
  private storedBounds(jobs: readonly StoredJob[]): Record<string, number> | undefined {
    let bounds: Record<string, number> | undefined;
    for (const { job } of jobs) {
      const bound = this.queueConfigs.get(job.queue)?.max_depth;
      if (bound !== undefined) (bounds ??= {})[job.queue] = bound;
    }
    return bounds;
  }

  /** The backlog (`STATE_SETS.backlog`) of each named queue, from the per-queue counters. */
  private backlogDepths(bounds: Readonly<Record<string, number>>): Record<string, number> {
    const depths: Record<string, number> = {};
    for (const name of Object.keys(bounds)) {
      const counts = this.store.queues.get(name)?.counts;
      depths[name] = counts === undefined ? 0 : STATE_SETS.backlog.reduce((sum, s) => sum + counts[s], 0);
    }
    return depths;
  }

  async jobClaim(params: ClaimParams): Promise<ClaimResult> {
    // No dispatch log runs on the memory driver (capabilities.dispatchLog is false): nothing is ever dispatched.
    if (params.dispatched === true) throw OjsError.unsupported('The memory driver has no dispatch log: it cannot claim dispatched jobs.');
    const { limit, now, nowIso, workerId } = params;
    const claimNote = noteOf(EFFECTS.claim, nowIso);
    this.rateLimits.held = undefined;
    const jobs: Job[] = [];
    const promoted: JobSummary[] = [];
    const expired: Job[] = [];
    for (const name of params.queues) {
      if (jobs.length >= limit) break;
      const q = this.store.queues.get(name);
      if (q === undefined || q.record.paused) continue;
      this.promoteQueue(q, now, nowIso, limit + INLINE_PROMOTION_SLACK, promoted, expired);
      const config = this.queueConfigs.get(name);
      const queueLimit = queueClaimLimitOf(config);
      const rank = agedRank(ageBoostIntervalOf(config));
      while (jobs.length < limit) {
        let entry = rank === undefined ? q.available.peek() : q.available.peekRanked(rank);
        if (entry === undefined) break;
        const limited = !MemoryRateLimits.unlimited(entry, queueLimit);
        if (limited) {
          entry = this.rateLimits.firstAllowed(q, queueLimit, now, rank);
          if (entry === undefined) break;
        }
        if (entry.x.expiresAt !== undefined && entry.x.expiresAt < now) {
          expired.push(this.expireEntry(entry, now, nowIso));
          continue;
        }
        this.store.detach(entry);
        const { job, x } = entry;
        const from = job.state;
        // EFFECTS.claim, written field by field: a claim is the driver's hot path, where applyEffect's keyed
        // writes cost about a quarter of the claim (bench:lifecycle, driver claims from a backlog); CLAIM_WRITES
        // is checked against the effect when this module loads.
        job.state = CLAIMED;
        job.attempt += 1;
        job.started_at = nowIso;
        if (job.next_attempt_at !== undefined) job.next_attempt_at = undefined;
        if (x.progress !== undefined) x.progress = undefined;
        job.worker_id = workerId;
        const visibility = params.visibilityMs ?? x.visibilityMs;
        x.claimVisibilityMs = visibility;
        x.visibleUntil = now + visibility;
        x.timeoutAt = now + x.timeoutMs;
        this.store.attach(entry, from, nowIso);
        if (limited) this.rateLimits.claimed(entry, queueLimit, now);
        this.record(entry, claimNote, from);
        jobs.push(copyStoredJob(job));
      }
    }
    const held = this.rateLimits.held;
    return held === undefined ? { jobs, promoted, expired } : { jobs, promoted, expired, held };
  }

  async jobTransition(op: TransitionOp): Promise<TransitionResult> {
    return this.transition(op);
  }

  async jobCompleteMany(params: CompleteManyParams): Promise<TransitionResult[]> {
    const { jobs, now, nowIso } = params;
    const returning = params.returning ?? 'job';
    const results = new Array<TransitionResult>(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      const result = this.transition(completionOp(jobs[i]!, now, nowIso, returning));
      // a workflow member comes back in full (CompleteManyParams.returning)
      if (result.ok && 'summary' in result && result.summary.workflow_id !== undefined) {
        results[i] = { ok: true, from: result.from, job: copyStoredJob(this.store.jobs.get(result.summary.id)!.job) };
      } else results[i] = result;
    }
    return results;
  }

  async jobFailMany(params: FailManyParams): Promise<TransitionResult[]> {
    const { jobs, now, nowIso } = params;
    const results = new Array<TransitionResult>(jobs.length);
    for (let i = 0; i < jobs.length; i++) results[i] = this.transition(failureOp(jobs[i]!, now, nowIso));
    return results;
  }

  async jobHistory(params: { id: string }): Promise<JobHistory | null> {
    const entry = this.store.jobs.get(params.id);
    if (entry === undefined) return null;
    return entry.history?.read() ?? { entries: [], dropped: 0 };
  }

  /**
   * Appends the history line of a transition `entry` just made (in the same synchronous step), unless the job's
   * queue opts out (`history: false` in its configuration).
   */
  private record(entry: JobEntry, note: TransitionNote, from: JobState | null, heldBy?: string): void {
    if (!queueRecordsHistory(this.queueConfigs.get(entry.job.queue))) return;
    (entry.history ??= new JobHistoryLog()).append(historyEntry(note, from, entry.job, heldBy));
  }

  async jobGet(id: string): Promise<StoredJob | null> {
    const entry = this.store.jobs.get(id);
    return entry === undefined ? null : copyStored(entry);
  }

  async jobList(params: JobListParams): Promise<{ jobs: Job[]; total: number }> {
    const { queue, state, type, deadLetter } = params;
    // The dead-letter set is the small side when asked for; otherwise listing is an admin scan.
    const source: Iterable<JobEntry> = deadLetter === true ? this.store.deadLetter : this.store.jobs.values();
    const matches: JobEntry[] = [];
    for (const entry of source) {
      const job = entry.job;
      if (queue !== undefined && job.queue !== queue) continue;
      if (state !== undefined && job.state !== state) continue;
      if (type !== undefined && job.type !== type) continue;
      if (deadLetter !== undefined && (entry.x.deadLetter === true) !== deadLetter) continue;
      if (params.createdFrom !== undefined && job.created_at < params.createdFrom) continue;
      if (params.createdBefore !== undefined && job.created_at >= params.createdBefore) continue;
      matches.push(entry);
    }
    matches.sort((p, q) => (p.job.id < q.job.id ? 1 : p.job.id > q.job.id ? -1 : 0));
    const page = matches.slice(params.offset, params.offset + params.limit);
    return { jobs: page.map((e) => copyStoredJob(e.job)), total: matches.length };
  }

  async jobDelete(params: { id: string; expect?: { states?: readonly JobState[]; deadLetter?: boolean } }): Promise<Job | null> {
    const entry = this.store.jobs.get(params.id);
    if (entry === undefined) return null;
    const expect = params.expect;
    if (expect?.states !== undefined && !expect.states.includes(entry.job.state)) return null;
    if (expect?.deadLetter !== undefined && (entry.x.deadLetter === true) !== expect.deadLetter) return null;
    this.store.delete(entry);
    return copyStoredJob(entry.job);
  }

  async jobHeartbeat(params: HeartbeatParams): Promise<HeartbeatResult> {
    const extended: HeartbeatResult['extended'] = [];
    const states: Record<string, JobState | null> = {};
    for (const id of params.ids) {
      const entry = this.store.jobs.get(id);
      states[id] = entry?.job.state ?? null;
      if (entry === undefined || !HELD.has(entry.job.state)) continue;
      const held = entry.job.worker_id;
      if (params.workerId !== undefined && held !== undefined && held !== params.workerId) continue;
      const x = entry.x;
      const visibleUntil = params.now + (params.visibilityMs ?? x.claimVisibilityMs ?? x.visibilityMs);
      x.visibleUntil = visibleUntil;
      this.store.rekeyActive(entry);
      extended.push({ ...summarize(entry.job), visibleUntil, ...(held !== undefined ? { worker_id: held } : {}) });
    }
    return { extended, states };
  }

  async jobPromote(params: { now: number; nowIso: string; limit: number }): Promise<{ promoted: JobSummary[]; expired: Job[] }> {
    const promoted: JobSummary[] = [];
    const expired: Job[] = [];
    let left = params.limit;
    for (const q of this.store.queues.values()) {
      if (left <= 0) break;
      left -= this.promoteQueue(q, params.now, params.nowIso, left, promoted, expired);
    }
    return { promoted, expired };
  }

  async jobExpire(params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
    const expired: Job[] = [];
    const heap = this.store.expiry;
    while (expired.length < params.limit) {
      const node = heap.peek();
      if (node === undefined || node.a >= params.now) break;
      expired.push(this.expireEntry(node.entry, params.now, params.nowIso));
    }
    return expired;
  }

  async jobListOverdue(params: { now: number; limit: number }): Promise<StoredJob[]> {
    return this.store.active.smallest(params.limit, params.now).map(copyStored);
  }

  async jobPrune(params: PruneParams): Promise<number> {
    const { finished, finishedDeadLetter } = this.store;
    if (params.state !== undefined || params.queue !== undefined || params.exceptQueues !== undefined || params.deadLetter === 'only') {
      return this.pruneFiltered(params);
    }
    let pruned = 0;
    while (pruned < params.limit) {
      const plain = finished.peek();
      const dead = params.deadLetter === true ? finishedDeadLetter.peek() : undefined;
      const next = dead !== undefined && (plain === undefined || dead.a < plain.a) ? dead : plain;
      if (next === undefined || next.a >= params.before) break;
      this.store.delete(next);
      pruned++;
    }
    return pruned;
  }

  /**
   * A prune narrowed by state or queue: the retention heaps are ordered by finish time only, so this walks them
   * (O(finished jobs) a call; the engine's pruner makes such calls only for configured retentions).
   */
  private pruneFiltered(params: PruneParams): number {
    const { finished, finishedDeadLetter } = this.store;
    const heaps = params.deadLetter === 'only' ? [finishedDeadLetter] : params.deadLetter === true ? [finished, finishedDeadLetter] : [finished];
    const except = new Set(params.exceptQueues ?? []);
    const doomed = heaps
      .flatMap((heap) => heap.nodesUnordered())
      .filter(({ job, x }) => {
        if (x.finishedAt === undefined || x.finishedAt >= params.before) return false;
        if (params.state !== undefined && job.state !== params.state) return false;
        if (params.queue !== undefined ? job.queue !== params.queue : except.has(job.queue)) return false;
        return true;
      })
      .sort((a, b) => a.x.finishedAt! - b.x.finishedAt!)
      .slice(0, params.limit);
    for (const entry of doomed) this.store.delete(entry);
    return doomed.length;
  }

  async jobCounts(params: { queue?: string }): Promise<Record<JobState, number>> {
    if (params.queue === undefined) return { ...this.store.totals };
    const q = this.store.queues.get(params.queue);
    return q === undefined ? zeroCounts() : { ...q.counts };
  }

  // ---------------------------------------------------------------- queues

  async queueList(): Promise<QueueRecord[]> {
    return [...this.store.queues.values()].map((q) => ({ ...q.record })).sort((p, q) => (p.name < q.name ? -1 : p.name > q.name ? 1 : 0));
  }

  async queueGet(name: string): Promise<QueueRecord | null> {
    const q = this.store.queues.get(name);
    return q === undefined ? null : { ...q.record };
  }

  async queueSetPaused(params: { name: string; paused: boolean; nowIso: string }): Promise<QueueRecord> {
    const q = this.store.queue(params.name, params.nowIso);
    const record = q.record;
    if (record.paused !== params.paused) {
      record.paused = params.paused;
      if (params.paused) record.paused_at = params.nowIso;
      else record.resumed_at = params.nowIso;
    }
    return { ...record };
  }

  // ---------------------------------------------------------------- queue configuration

  async queueConfigGet(name: string): Promise<QueueConfigRecord | null> {
    const record = this.queueConfigs.get(name);
    return record === undefined ? null : cloneValue(record);
  }

  async rateLimitState(params: { queue: string; now: number }): Promise<RateLimitState> {
    return this.rateLimits.state(this.store.queues.get(params.queue), params.queue, params.now);
  }

  async queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord> {
    this.store.queue(record.name, record.updated_at);
    this.queueConfigs.set(record.name, cloneValue(record));
    return cloneValue(record);
  }

  async queueConfigList(): Promise<QueueConfigRecord[]> {
    return [...this.queueConfigs.values()].map((c) => cloneValue(c));
  }

  // ---------------------------------------------------------------- workers

  async workerRecord(info: Omit<WorkerRecord, 'directive'>): Promise<WorkerRecord> {
    const directive = this.workers.get(info.id)?.directive ?? 'running';
    const record: WorkerRecord = { ...cloneValue(info), directive };
    this.workers.set(info.id, record);
    return cloneValue(record);
  }

  async workerSetDirective(params: { id: string; directive: WorkerRecord['directive']; nowIso: string; now: number }): Promise<WorkerRecord> {
    let record = this.workers.get(params.id);
    if (record === undefined) {
      // An operator may address a worker before its first heartbeat; the directive waits for it.
      record = {
        id: params.id,
        state: params.directive,
        directive: params.directive,
        last_heartbeat_at: params.nowIso,
        lastHeartbeatMs: params.now,
        active_job_ids: [],
      };
      this.workers.set(params.id, record);
    } else {
      record.directive = params.directive;
    }
    return cloneValue(record);
  }

  async workerList(): Promise<WorkerRecord[]> {
    return [...this.workers.values()].map((w) => cloneValue(w));
  }

  async workerDelete(id: string): Promise<void> {
    this.workers.delete(id);
  }

  // ---------------------------------------------------------------- cron

  async cronUpsert(record: CronRecord): Promise<{ created: boolean }> {
    const created = !this.crons.has(record.name);
    this.crons.set(record.name, cloneValue(record));
    return { created };
  }

  async cronGet(name: string): Promise<CronRecord | null> {
    const record = this.crons.get(name);
    return record === undefined ? null : cloneValue(record);
  }

  async cronList(): Promise<CronRecord[]> {
    return [...this.crons.values()].sort((p, q) => (p.name < q.name ? -1 : p.name > q.name ? 1 : 0)).map((c) => cloneValue(c));
  }

  async cronDelete(name: string): Promise<CronRecord | null> {
    const record = this.crons.get(name);
    if (record === undefined) return null;
    this.crons.delete(name);
    return record;
  }

  async cronAdvance(params: { name: string; expectNextRunMs: number | null; patch: Partial<CronRecord> }): Promise<boolean> {
    const record = this.crons.get(params.name);
    if (record === undefined || record.nextRunMs !== params.expectNextRunMs) return false;
    const patch = cloneValue(params.patch);
    delete patch.name;
    Object.assign(record, patch);
    return true;
  }

  // ---------------------------------------------------------------- workflows

  async workflowGet(id: string): Promise<WorkflowRecord | null> {
    const record = this.workflows.get(id);
    return record === undefined ? null : cloneValue(record);
  }

  async workflowSave(params: { workflow: WorkflowRecord; expectVersion: number | null; insert?: StoredJob[]; now: number; nowIso: string }): Promise<boolean> {
    const current = this.workflows.get(params.workflow.id);
    if (params.expectVersion === null ? current !== undefined : current?.version !== params.expectVersion) return false;
    if (params.insert !== undefined && params.insert.length > 0) {
      // Re-drives skip jobs that exist; a unique `reject` skips too, as the save cannot half-fail.
      this.insert(params.insert, params.now, params.nowIso, 'skip');
    }
    this.workflows.set(params.workflow.id, cloneValue(params.workflow));
    return true;
  }

  // ---------------------------------------------------------------- leases

  async leaseAcquire(params: { name: string; owner: string; ttlMs: number; now: number }): Promise<boolean> {
    const lease = this.leases.get(params.name);
    if (lease !== undefined && lease.owner !== params.owner && lease.until > params.now) return false;
    this.leases.set(params.name, { owner: params.owner, until: params.now + params.ttlMs });
    return true;
  }

  async leaseRelease(params: { name: string; owner: string }): Promise<void> {
    if (this.leases.get(params.name)?.owner === params.owner) this.leases.delete(params.name);
  }

  // ---------------------------------------------------------------- lifecycle

  async ping(): Promise<void> {}

  async reset(): Promise<void> {
    this.store.clear();
    this.rateLimits.clear();
    this.workers.clear();
    this.queueConfigs.clear();
    this.crons.clear();
    this.workflows.clear();
    this.leases.clear();
  }

  /** Nothing to release; the data stays readable until the driver is garbage collected. */
  async close(): Promise<void> {}

  // ---------------------------------------------------------------- internals

  /** Plans then applies an insert; returns the outcomes, or the abort result (nothing stored). */
  private insert(jobs: readonly StoredJob[], now: number, nowIso: string, mode: InsertConflictMode): InsertOutcome[] | InsertConflict {
    const plan = this.insertPort.plan(jobs, now, mode);
    if (!plan.ok) return this.insertPort.takeBack(plan);
    const outcomes: InsertOutcome[] = [];
    const steps = plan.steps;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.kind === 'skip') continue;
      if (step.kind === 'existing') {
        outcomes.push({ status: 'existing', job: copyStoredJob(step.match.job) });
        continue;
      }
      let replaced: Job | undefined;
      // A job staged earlier in this batch is indexed by its own step, which came first.
      const match = step.replace;
      if (match !== undefined) {
        this.store.detach(match);
        const from = match.job.state;
        applyEffect(match.job, match.x, EFFECTS.uniqueReplace, now, nowIso);
        this.store.attach(match, from, nowIso);
        this.record(match, noteOf(EFFECTS.uniqueReplace, nowIso), from);
        replaced = copyStoredJob(match.job);
      }
      const entry = step.staged;
      this.store.index(entry, nowIso);
      this.record(entry, { at: nowIso, trigger: 'push' }, null);
      // The caller's own input when the stored job equals it (handing a caller back its own object exposes
      // nothing stored and saves a copy); a copy of the stored job when it took a replaced job's schedule.
      const job = step.rescheduled ? copyStoredJob(entry.job) : jobs[i]!.job;
      outcomes.push(replaced === undefined ? { status: 'inserted', job } : { status: 'inserted', job, replaced });
    }
    return outcomes;
  }

  /** One guarded compare-and-set (driver.ts `TransitionOp`). */
  private transition(op: TransitionOp): TransitionResult {
    const entry = this.store.jobs.get(op.id);
    if (entry === undefined) return { ok: false, state: null };
    const { job, x } = entry;
    const from = job.state;
    const heldBy = job.worker_id;
    if (!op.from.includes(from) || (from !== op.to && LEGAL.get(from)?.has(op.to) !== true) || !expectHolds(entry, op.expect)) {
      return { ok: false, state: from, job: copyStoredJob(job) };
    }
    this.store.detach(entry);
    const oldKey = x.uniqueKey;
    if (op.set !== undefined) {
      const set = op.set as Record<string, unknown>;
      for (const key in set) {
        if (PROTECTED_KEYS.has(key)) continue;
        const value = set[key];
        job[key] = value === undefined ? undefined : cloneValue(value);
      }
    }
    // A field already undefined (or absent) needs no write: only present values are cleared.
    if (op.unset !== undefined) for (const key of op.unset) if (job[key] !== undefined && !PROTECTED_KEYS.has(key)) job[key] = undefined;
    if (op.x !== undefined) {
      const fields = x as unknown as Record<string, unknown>;
      const patch = op.x as Record<string, unknown>;
      for (const key in patch) {
        const value = patch[key];
        if (value === undefined) continue;
        fields[key] = value === null ? undefined : cloneValue(value);
      }
    }
    job.state = op.to;
    if (x.uniqueKey !== oldKey) {
      this.store.unique.remove(entry, oldKey);
      this.store.unique.add(entry);
    }
    // A transition carries no nowIso; a queue it creates (a job moved to a new queue) is dated by the job.
    this.store.attach(entry, from, job.enqueued_at ?? job.created_at);
    if (from !== op.to) this.record(entry, op.note ?? inferredNote(from, op.to, job), from, heldBy);
    return op.returning === 'summary' ? { ok: true, from, summary: summarize(job) } : { ok: true, from, job: copyStoredJob(job) };
  }

  /**
   * Promotes due jobs of one queue (at most `limit`), appending to `promoted`/`expired`.
   * Returns how many jobs it moved.
   */
  private promoteQueue(q: QueueState, now: number, nowIso: string, limit: number, promoted: JobSummary[], expired: Job[]): number {
    let moved = 0;
    while (moved < limit) {
      const entry = q.due.peek();
      if (entry === undefined || entry.a > now) break;
      moved++;
      if (entry.x.expiresAt !== undefined && entry.x.expiresAt < now) {
        expired.push(this.expireEntry(entry, now, nowIso));
        continue;
      }
      this.store.detach(entry);
      const from = entry.job.state;
      applyEffect(entry.job, entry.x, EFFECTS.promote, now, nowIso);
      this.store.attach(entry, from, nowIso);
      this.record(entry, noteOf(EFFECTS.promote, nowIso), from);
      promoted.push({ ...summarize(entry.job), from });
    }
    return moved;
  }

  /** Moves a job past its `expires_at` to `discarded`; returns a copy of it. */
  private expireEntry(entry: JobEntry, now: number, nowIso: string): Job {
    this.store.detach(entry);
    const from = entry.job.state;
    applyEffect(entry.job, entry.x, EFFECTS.expire, now, nowIso);
    this.store.attach(entry, from, nowIso);
    this.record(entry, noteOf(EFFECTS.expire, nowIso), from);
    return copyStoredJob(entry.job);
  }
}

/** The `expect` guards of a transition. */
function expectHolds(entry: JobEntry, expect: TransitionOp['expect']): boolean {
  if (expect === undefined) return true;
  const { job, x } = entry;
  if (expect.attempt !== undefined && job.attempt !== expect.attempt) return false;
  if (expect.workerId !== undefined && job.worker_id !== undefined && job.worker_id !== expect.workerId) return false;
  if (expect.visibleUntil !== undefined && x.visibleUntil !== expect.visibleUntil) return false;
  if (expect.deadLetter !== undefined && (x.deadLetter === true) !== expect.deadLetter) return false;
  return true;
}

function copyStored(entry: JobEntry): StoredJob {
  return { job: copyStoredJob(entry.job), x: cloneValue(entry.x) as JobInternals };
}
