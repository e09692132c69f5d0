/** PostgresDriver: the ojskit Driver over node-postgres, one guarded SQL statement per primitive. */
import { OjsError, type Job } from '@ojskit/core';
import {
  depthBounds,
  JOB_STATES,
  STATE_ROLES,
  type ClaimParams,
  type ClaimResult,
  type CompleteManyParams,
  type CronRecord,
  type Driver,
  type DriverCapabilities,
  type FailManyParams,
  type HeartbeatParams,
  type HeartbeatResult,
  type InsertParams,
  type InsertResult,
  type JobHistory,
  type JobListParams,
  type JobState,
  type JobSummary,
  type PruneParams,
  type QueueConfigRecord,
  type RateLimitState,
  type QueueRecord,
  type StoredJob,
  type TransitionOp,
  type TransitionResult,
  type WorkerRecord,
  type WorkflowRecord,
} from '@ojskit/core/driver';
import type { ClientConfig, Pool, QueryResultRow } from 'pg';
import { PgEventTransport } from './event-transport.js';
import { jobFromRow, RowReader, storedFromRow, summaryFromRow, type JobRow } from './job-row.js';
import { insertJobs } from './job-insert.js';
import { DEFAULT_SCHEMA } from './migrate.js';
import { errorCode, toOjsError } from './pg-errors.js';
import { assertSchemaName } from './sql-template.js';
import { isQueryable, Statements, type Queryable } from './statements.js';
import { atomically } from './transactions.js';
import { claimRateLimited, type LimitedClaimTakes } from './rate-limited-claim.js';
import { completeJobs, failJobs, transitionJobs } from './job-transitions.js';
import { decodeHistoryLine } from './history-sql.js';
import { DEFAULT_PARTITIONS, dropPartitionsBefore, ensurePartitions, type PartitionPlan } from './finished-partitions.js';

/** How long a claim waits for other statements' promotions of the due jobs it met (ms). */
const AWAIT_PROMOTIONS_MS = 1_000;
/** How many times one claim runs again after missing jobs other statements held (each may hold new ones). */
const MAX_RETRIES = 10;
/** jobClaim's 'missed' row: due jobs held (1), or only available ones (2). */
const MISSED_DUE = 1;
/** SQLSTATE of a lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

const CAPABILITIES: DriverCapabilities = Object.freeze({
  transactionalEnqueue: true,
  crossProcessEvents: true,
  uniqueStrength: 'strong',
  durable: true,
  rateLimiting: true,
  // Every statement that changes a job's state appends its history line (history-sql.ts).
  history: true,
});

export interface PostgresDriverOptions {
  /** The pool the driver queries through. Migrate the schema first (`migrate()`). */
  pool: Pool;
  /** Schema holding the ojskit tables. Default `ojskit`. */
  schema?: string;
  /** End the pool on `close()` (set by `createPostgresDriver`, which made it). Default false. */
  ownsPool?: boolean;
  /**
   * Admit core's dispatch-log rows (`DISPATCH_TRANSITIONS`) in the transition guard and report
   * `capabilities.dispatchLog`: for the state store of a dispatch log (`@ojskit/kafka`), whose schema is migrated
   * with `dispatchLog: true` too. Default false: the driver refuses those rows, as every plain backend must.
   */
  dispatchLog?: boolean;
  /**
   * Record each job's history (`x-job-history`, `jobHistory`): every statement that changes a job's state appends
   * its line to the job row's `history` in the same statement (default true). False writes none and reports
   * `capabilities.history: false`; the benchmarks compare the two.
   */
  history?: boolean;
  /** Carry events across processes with LISTEN/NOTIFY. Default true. */
  events?: boolean;
  /** Connection settings of the LISTEN client. Default: the pool's own settings. */
  listenConfig?: ClientConfig;
  /** Failures with no caller to report to (lost LISTEN connection, idle client errors). Default: console.warn. */
  onError?: (error: Error) => void;
  /**
   * Refresh planner statistics (ANALYZE jobs) after this many inserted jobs, at least 10% of the table
   * (autovacuum would wait up to a minute; a claim planned on stale statistics is much slower). 0 turns it
   * off. Default 10 000.
   */
  analyzeAfterInserts?: number;
  /**
   * How long (ms) events wait to be published to other processes (NOTIFY), so that those of that time share one
   * statement (default 2; 0: at the end of the event-loop turn). Listeners in this process get them at once.
   */
  eventPublishDelayMs?: number;
  /**
   * Publish events even while no other ojskit process listens (default false: a process that counts no other
   * listener stops sending NOTIFYs until one says hello). Set it when something else LISTENs (psql, a trigger
   * reader) and must hear the events.
   */
  publishEventsWhenAlone?: boolean;
  /**
   * Rows the event log (`event_log`) keeps, about (default 10 000; a row holds one NOTIFY payload, up to ~8 kB
   * of events). It bounds how far back a Last-Event-ID resumes, and what a process whose LISTEN connection was
   * lost reads back once it is up again.
   */
  eventLogMaxRows?: number;
  /**
   * Partitions of the finished jobs (`jobs_finished`): their width in ms of finish time (default one day) and
   * how many the pruner keeps created ahead (default 2). Retention drops whole partitions, so a finished job
   * is kept for its retention and at most one width longer.
   */
  finishedPartitions?: Partial<PartitionPlan>;
}

/** The parameters jobClaim.sql and jobClaimDispatched.sql share ($1–$6), for `wanted` more jobs. */
function claimArgs(params: ClaimParams, wanted: number): unknown[] {
  return [params.queues, wanted, params.workerId, params.now, params.nowIso, params.visibilityMs ?? null];
}

/**
 * The Postgres driver. Unfinished jobs live in `jobs` (the hot table), finished ones in `jobs_finished`
 * (partitioned by finish day, dead letters apart); every state change is an UPDATE guarded by the expected
 * from-states (and attempt / worker / deadline), or, into or out of a finished state, a DELETE with the same
 * guards feeding an INSERT into the other table; triggers refuse edges the lifecycle table lacks. Claims lock
 * rows FOR UPDATE SKIP LOCKED. See README.md for the schema and the guarantees.
 *
 * @example
 * const driver = await createPostgresDriver('postgres://postgres@127.0.0.1:5432/app');
 * const engine = new Engine({ driver });
 */
export class PostgresDriver implements Driver {
  readonly name = 'postgres';
  readonly capabilities: DriverCapabilities;
  readonly events: PgEventTransport | undefined;
  readonly schema: string;
  private readonly pool: Pool;
  private readonly sql: Statements;
  private readonly ownsPool: boolean;
  private readonly analyzeAfter: number;
  private readonly partitions: PartitionPlan;
  private insertedSinceAnalyze = 0;
  private rowsAtAnalyze = 0;
  private analyzing: Promise<void> | undefined;
  private closed = false;
  private readonly onPoolError: (error: Error) => void;

  constructor(options: PostgresDriverOptions) {
    this.pool = options.pool;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_SCHEMA);
    const dispatchLog = options.dispatchLog === true;
    const history = options.history !== false;
    this.capabilities = dispatchLog || !history ? Object.freeze({ ...CAPABILITIES, dispatchLog, history }) : CAPABILITIES;
    this.sql = new Statements(this.schema, { dispatchLog, history });
    this.ownsPool = options.ownsPool ?? false;
    this.analyzeAfter = options.analyzeAfterInserts ?? 10_000;
    this.partitions = { ...DEFAULT_PARTITIONS, ...options.finishedPartitions };
    const onError = options.onError ?? ((error: Error) => console.warn(error.message));
    // Idle clients see the server go away (restart, failover) as an 'error' event; unhandled, it would
    // crash the process. The pool replaces them on the next query.
    this.onPoolError = (error: Error) => onError(new Error(`ojskit postgres: idle client error: ${error.message}`, { cause: error }));
    this.pool.on('error', this.onPoolError);
    this.events =
      options.events === false
        ? undefined
        : new PgEventTransport({
            pool: this.pool,
            sql: this.sql,
            listenConfig: options.listenConfig ?? (this.pool as unknown as { options: ClientConfig }).options,
            onError,
            ...(options.eventPublishDelayMs !== undefined ? { publishDelayMs: options.eventPublishDelayMs } : {}),
            ...(options.publishEventsWhenAlone !== undefined ? { publishWhenAlone: options.publishEventsWhenAlone } : {}),
            ...(options.eventLogMaxRows !== undefined ? { eventLogMaxRows: options.eventLogMaxRows } : {}),
          });
  }

  // ---------------------------------------------------------------- jobs

  async jobInsert(params: InsertParams): Promise<InsertResult> {
    let tx: Queryable | undefined;
    if (params.tx !== undefined) {
      if (!isQueryable(params.tx)) throw new TypeError('jobInsert: `tx` must be a pg client inside an open transaction');
      tx = params.tx;
    }
    const bounds = params.bounds === 'stored' ? depthBounds(params.jobs, new Map((await this.queueConfigList()).map((c) => [c.name, c]))) : params.bounds;
    const result = await insertJobs(
      { pool: this.pool, sql: this.sql },
      { jobs: params.jobs, now: params.now, nowIso: params.nowIso, mode: 'abort', ...(tx ? { tx } : {}), ...(bounds ? { bounds } : {}) },
    );
    if (result.ok) this.countInserts(result.outcomes.length);
    return result;
  }

  async jobClaim(params: ClaimParams): Promise<ClaimResult> {
    if (params.dispatched === true) return this.claimDispatched(params);
    const result: ClaimResult = { jobs: [], promoted: [], expired: [] };
    if (params.limit <= 0 || params.queues.length === 0) return result;
    // One statement claims; it runs again while it promoted or expired jobs and is still short, and once
    // more after waiting for promotions other statements had under way when it ran (see jobClaim.sql).
    let retries = 0;
    for (;;) {
      const wanted = params.limit - result.jobs.length;
      const { rows, columns } = await this.sql.runArrays(this.pool, 'jobClaim', claimArgs(params, wanted));
      const read = new RowReader(columns);
      const kindAt = read.at('kind');
      const ordAt = read.at('ord');
      const rankAt = read.at('claim_rank');
      const seqAt = read.at('claim_seq');
      const fromAt = read.at('from_state');
      const claimed: unknown[][] = [];
      let moved = 0;
      let missed = 0;
      let limited = false;
      for (const row of rows) {
        const kind = row[kindAt];
        if (kind === 'claimed') claimed.push(row);
        else if (kind === 'limited') limited = true;
        else if (kind === 'missed') missed = row[ordAt] as number;
        else if (kind === 'expired') {
          result.expired.push(read.job(row));
          moved++;
        } else {
          const from = row[fromAt] as JobState | null;
          result.promoted.push({ ...read.summary(row), ...(from !== null ? { from } : {}) });
          moved++;
        }
      }
      // Claim order: queue position, then rank (−priority, or the age-boost rank), then FIFO. seq is a bigint (string).
      claimed.sort(
        (a, b) => Number(a[ordAt]) - Number(b[ordAt]) || (a[rankAt] as number) - (b[rankAt] as number) || compareSeq(a[seqAt] as string, b[seqAt] as string),
      );
      for (const row of claimed) result.jobs.push(read.job(row));
      if (limited) return this.claimLimited(result, params, wanted, 'ready');
      if (claimed.length >= wanted) return result;
      if (moved > 0) continue;
      if (missed === 0 || retries === MAX_RETRIES) return result;
      retries++;
      // Due jobs held by another statement: wait for it. Available ones only: that statement (a claim that
      // locked them as due and found them promoted) ends within its round trip; claim again at once.
      if (missed === MISSED_DUE) await this.awaitPromotions(params.queues, params.now);
    }
  }

  /** Adds to `result` what the rate-limited claim (rate-limited-claim.ts) takes, and its `held` hint. */
  private async claimLimited(result: ClaimResult, params: ClaimParams, wanted: number, takes: LimitedClaimTakes): Promise<ClaimResult> {
    const limitedClaim = await claimRateLimited(this.sql, this.pool, params, wanted, takes);
    result.jobs.push(...limitedClaim.jobs);
    if (limitedClaim.held) result.held = limitedClaim.held;
    return result;
  }

  /**
   * A claim of the jobs a dispatch log delivered (`ClaimParams.dispatched`), as jobClaimDispatched.sql: one
   * statement, run again while it expired jobs and is still short of the limit.
   */
  private async claimDispatched(params: ClaimParams): Promise<ClaimResult> {
    if (this.capabilities.dispatchLog !== true) {
      throw OjsError.unsupported('A claim of dispatched jobs needs a driver created with dispatchLog: true.');
    }
    const result: ClaimResult = { jobs: [], promoted: [], expired: [] };
    if (params.limit <= 0 || params.queues.length === 0) return result;
    for (;;) {
      const wanted = params.limit - result.jobs.length;
      const { rows, columns } = await this.sql.runArrays(this.pool, 'jobClaimDispatched', claimArgs(params, wanted));
      const read = new RowReader(columns);
      const kindAt = read.at('kind');
      const ordAt = read.at('ord');
      const rankAt = read.at('claim_rank');
      const dispatchedAt = read.at('dispatched_at');
      const seqAt = read.at('claim_seq');
      const claimed: unknown[][] = [];
      let expired = 0;
      let limited = false;
      for (const row of rows) {
        if (row[kindAt] === 'claimed') claimed.push(row);
        else if (row[kindAt] === 'limited') limited = true;
        else {
          result.expired.push(read.job(row));
          expired++;
        }
      }
      // Claim order: queue position, rank (−priority, or the age-boost rank), dispatch time, then FIFO.
      claimed.sort(
        (a, b) =>
          Number(a[ordAt]) - Number(b[ordAt]) ||
          (a[rankAt] as number) - (b[rankAt] as number) ||
          (a[dispatchedAt] as number) - (b[dispatchedAt] as number) ||
          compareSeq((a[seqAt] as string | null) ?? '0', (b[seqAt] as string | null) ?? '0'),
      );
      for (const row of claimed) result.jobs.push(read.job(row));
      if (limited) return this.claimLimited(result, params, wanted, 'delivered');
      if (claimed.length >= wanted || expired === 0) return result;
    }
  }

  /**
   * Waits (at most AWAIT_PROMOTIONS_MS) for the statements that hold due jobs of `queues`: a claim that met
   * them skipped them and read them as still waiting, though they may be claimable once those statements commit.
   */
  private async awaitPromotions(queues: readonly string[], now: number): Promise<void> {
    try {
      await atomically(this.pool, undefined, async (on) => {
        await on.query({ text: `SET LOCAL lock_timeout = ${AWAIT_PROMOTIONS_MS}` });
        await this.sql.run(on, 'jobClaim.awaitPromotions', [queues, now]);
      });
    } catch (error) {
      // A row held longer than that (someone's open transaction) is left to the next FETCH.
      if (errorCode((error as Error).cause) !== LOCK_NOT_AVAILABLE) throw error;
    }
  }

  async jobTransition(op: TransitionOp): Promise<TransitionResult> {
    const [result] = await transitionJobs(this.sql, this.pool, [op]);
    return result!;
  }

  /** Every item one guarded statement (per shape), built from core's EFFECTS.ack. */
  async jobCompleteMany(params: CompleteManyParams): Promise<TransitionResult[]> {
    return completeJobs(this.sql, this.pool, params);
  }

  /** Every item one guarded statement (per shape), built from core's EFFECTS for its outcome. */
  async jobFailMany(params: FailManyParams): Promise<TransitionResult[]> {
    return failJobs(this.sql, this.pool, params);
  }

  /** The job row's history columns (history-sql.ts), from whichever table holds it. */
  async jobHistory(params: { id: string }): Promise<JobHistory | null> {
    const [row] = await this.sql.run<{ history: string[] | null; history_dropped: number | null }>(this.pool, 'jobHistory', [params.id]);
    if (row === undefined) return null;
    return { entries: (row.history ?? []).map(decodeHistoryLine), dropped: row.history_dropped ?? 0 };
  }

  async jobGet(id: string): Promise<StoredJob | null> {
    const [row] = await this.sql.run<JobRow>(this.pool, 'jobGet', [id]);
    return row === undefined ? null : storedFromRow(row);
  }

  async jobList(params: JobListParams): Promise<{ jobs: Job[]; total: number }> {
    const rows = await this.listing<JobRow & { total: number }>('jobList', [
      params.queue ?? null,
      params.state ?? null,
      params.type ?? null,
      params.deadLetter ?? null,
      params.limit,
      params.offset,
      params.createdFrom ?? null,
      params.createdBefore ?? null,
    ]);
    return {
      jobs: rows.flatMap((r) => (r.id === null ? [] : [jobFromRow(r)])),
      total: rows[0]?.total ?? 0,
    };
  }

  async jobDelete(params: { id: string; expect?: { states?: readonly JobState[]; deadLetter?: boolean } }): Promise<Job | null> {
    const [row] = await this.sql.run<JobRow>(this.pool, 'jobDelete', [params.id, params.expect?.states ?? null, params.expect?.deadLetter ?? null]);
    return row === undefined ? null : jobFromRow(row);
  }

  async jobHeartbeat(params: HeartbeatParams): Promise<HeartbeatResult> {
    const result: HeartbeatResult = { extended: [], states: {} };
    if (params.ids.length === 0) return result;
    const rows = await this.sql.run<{
      id: string;
      state: JobState | null;
      extended: boolean;
      type: string;
      queue: string;
      attempt: number;
      workflow_id: string | null;
      worker_id: string | null;
      visible_until: number;
    }>(this.pool, 'jobHeartbeat', [params.ids, params.now, params.visibilityMs ?? null, params.workerId ?? null]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of params.ids) {
      const row = byId.get(id);
      result.states[id] = row?.state ?? null;
    }
    // Report extensions in request order.
    for (const id of new Set(params.ids)) {
      const row = byId.get(id);
      if (row === undefined || !row.extended) continue;
      result.extended.push({
        ...summaryFromRow({ ...row, state: STATE_ROLES.claimed, doc: null }),
        visibleUntil: row.visible_until,
        ...(row.worker_id !== null ? { worker_id: row.worker_id } : {}),
      });
    }
    return result;
  }

  async jobPromote(params: { now: number; nowIso: string; limit: number }): Promise<{ promoted: JobSummary[]; expired: Job[] }> {
    const rows = await this.sql.run<JobRow & { kind: 'promoted' | 'expired'; from_state: JobState | null }>(this.pool, 'jobPromote', [
      params.now,
      params.nowIso,
      params.limit,
    ]);
    const promoted: JobSummary[] = [];
    const expired: Job[] = [];
    for (const row of rows) {
      if (row.kind === 'expired') expired.push(jobFromRow(row));
      else promoted.push(promotedSummary(row));
    }
    return { promoted, expired };
  }

  async jobExpire(params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
    const rows = await this.sql.run<JobRow>(this.pool, 'jobExpire', [params.now, params.nowIso, params.limit]);
    return rows.map(jobFromRow);
  }

  async jobListOverdue(params: { now: number; limit: number }): Promise<StoredJob[]> {
    const rows = await this.sql.run<JobRow>(this.pool, 'jobListOverdue', [params.now, params.limit]);
    return rows.map(storedFromRow);
  }

  /**
   * Retention of finished jobs: drops the day partitions of `jobs_finished` wholly before `before`, creates
   * those ahead that are missing (of this process's wall clock: finish times to come), then deletes row by row what no dropped
   * partition took (the default partition; the dead-letter queue with `deadLetter`). Run by the engine's
   * pruner, under its lease.
   */
  async jobPrune(params: PruneParams): Promise<number> {
    if (params.state !== undefined || params.queue !== undefined || params.exceptQueues !== undefined || params.deadLetter === 'only') {
      const deadLetter = params.deadLetter === 'only' ? 'only' : params.deadLetter === true ? 'include' : 'exclude';
      const [row] = await this.sql.run<{ pruned: number }>(this.pool, 'jobPrune.filtered', [
        params.before,
        params.limit,
        deadLetter,
        params.state ?? null,
        params.queue ?? null,
        params.exceptQueues ?? [],
      ]);
      return row?.pruned ?? 0;
    }
    const dropped = await dropPartitionsBefore(this.pool, this.schema, params.before);
    await ensurePartitions(this.pool, this.schema, Date.now(), this.partitions);
    const [row] = await this.sql.run<{ pruned: number }>(this.pool, 'jobPrune', [params.before, params.limit, params.deadLetter === true]);
    return dropped + (row?.pruned ?? 0);
  }

  async jobCounts(params: { queue?: string }): Promise<Record<JobState, number>> {
    const rows = await this.listing<{ state: JobState; n: number }>('jobCounts', [params.queue ?? null]);
    const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  // ---------------------------------------------------------------- queues

  async queueConfigGet(name: string): Promise<QueueConfigRecord | null> {
    const [row] = await this.sql.run<{ config: QueueConfigRecord }>(this.pool, 'queueConfigGet', [name]);
    return row?.config ?? null;
  }

  async queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord> {
    const [row] = await this.sql.run<{ config: QueueConfigRecord }>(this.pool, 'queueConfigSet', [record.name, JSON.stringify(record), record.updated_at]);
    return row!.config;
  }

  async rateLimitState(params: { queue: string; now: number }): Promise<RateLimitState> {
    const rows = await this.sql.run<{
      kind: string;
      key: string | null;
      at: number | null;
      interval_ms: number | null;
      now: number | null;
      active: number;
      concurrency: number | null;
    }>(this.pool, 'rateLimitState', [params.queue]);
    const window = rows.find((r) => r.kind === 'window')!;
    return {
      now: window.now ?? params.now,
      lastClaimAt: window.at,
      intervalMs: window.interval_ms,
      queueActive: window.active,
      keys: rows.filter((r) => r.kind === 'key').map((r) => ({ key: r.key!, active: r.active, concurrency: r.concurrency })),
    };
  }

  async queueConfigList(): Promise<QueueConfigRecord[]> {
    return (await this.sql.run<{ config: QueueConfigRecord }>(this.pool, 'queueConfigList', [])).map((r) => r.config);
  }

  async queueList(): Promise<QueueRecord[]> {
    return (await this.sql.run<QueueRow>(this.pool, 'queueList', [])).map(queueFromRow);
  }

  async queueGet(name: string): Promise<QueueRecord | null> {
    const [row] = await this.sql.run<QueueRow>(this.pool, 'queueGet', [name]);
    return row === undefined ? null : queueFromRow(row);
  }

  async queueSetPaused(params: { name: string; paused: boolean; nowIso: string }): Promise<QueueRecord> {
    const [row] = await this.sql.run<QueueRow>(this.pool, 'queueSetPaused', [params.name, params.paused, params.nowIso]);
    return queueFromRow(row!);
  }

  // ---------------------------------------------------------------- workers

  async workerRecord(info: Omit<WorkerRecord, 'directive'>): Promise<WorkerRecord> {
    const [row] = await this.sql.run<WorkerRow>(this.pool, 'workerRecord', [info.id, JSON.stringify(info)]);
    return workerFromRow(row!);
  }

  async workerSetDirective(params: { id: string; directive: WorkerRecord['directive']; nowIso: string; now: number }): Promise<WorkerRecord> {
    // An operator may address a worker before its first heartbeat; the directive waits for it.
    const placeholder = {
      id: params.id,
      state: params.directive,
      last_heartbeat_at: params.nowIso,
      lastHeartbeatMs: params.now,
      active_job_ids: [],
    };
    const [row] = await this.sql.run<WorkerRow>(this.pool, 'workerSetDirective', [params.id, params.directive, JSON.stringify(placeholder)]);
    return workerFromRow(row!);
  }

  async workerList(): Promise<WorkerRecord[]> {
    return (await this.sql.run<WorkerRow>(this.pool, 'workerList', [])).map(workerFromRow);
  }

  async workerDelete(id: string): Promise<void> {
    await this.sql.run(this.pool, 'workerDelete', [id]);
  }

  // ---------------------------------------------------------------- cron

  async cronUpsert(record: CronRecord): Promise<{ created: boolean }> {
    const [row] = await this.sql.run<{ created: boolean }>(this.pool, 'cronUpsert', [record.name, JSON.stringify(record)]);
    return { created: row!.created };
  }

  async cronGet(name: string): Promise<CronRecord | null> {
    const [row] = await this.sql.run<{ doc: CronRecord }>(this.pool, 'cronGet', [name]);
    return row?.doc ?? null;
  }

  async cronList(): Promise<CronRecord[]> {
    return (await this.sql.run<{ doc: CronRecord }>(this.pool, 'cronList', [])).map((r) => r.doc);
  }

  async cronDelete(name: string): Promise<CronRecord | null> {
    const [row] = await this.sql.run<{ doc: CronRecord }>(this.pool, 'cronDelete', [name]);
    return row?.doc ?? null;
  }

  async cronAdvance(params: { name: string; expectNextRunMs: number | null; patch: Partial<CronRecord> }): Promise<boolean> {
    const { name: _ignored, ...patch } = params.patch;
    const rows = await this.sql.run(this.pool, 'cronAdvance', [params.name, params.expectNextRunMs, JSON.stringify(patch)]);
    return rows.length > 0;
  }

  // ---------------------------------------------------------------- workflows

  async workflowGet(id: string): Promise<WorkflowRecord | null> {
    const [row] = await this.sql.run<{ doc: WorkflowRecord }>(this.pool, 'workflowGet', [id]);
    return row?.doc ?? null;
  }

  async workflowSave(params: { workflow: WorkflowRecord; expectVersion: number | null; insert?: StoredJob[]; now: number; nowIso: string }): Promise<boolean> {
    const { workflow } = params;
    return atomically(this.pool, undefined, async (on) => {
      const saved = await this.sql.run(on, 'workflowSave', [workflow.id, workflow.version, JSON.stringify(workflow), params.expectVersion]);
      if (saved.length === 0) return false;
      if (params.insert !== undefined && params.insert.length > 0) {
        // Re-drives skip jobs that exist; a unique `reject` skips too, as the save cannot half-fail.
        await insertJobs({ pool: this.pool, sql: this.sql }, { jobs: params.insert, now: params.now, nowIso: params.nowIso, mode: 'skip', tx: on });
      }
      return true;
    });
  }

  // ---------------------------------------------------------------- leases

  async leaseAcquire(params: { name: string; owner: string; ttlMs: number; now: number }): Promise<boolean> {
    const rows = await this.sql.run(this.pool, 'leaseAcquire', [params.name, params.owner, params.now, params.ttlMs]);
    return rows.length > 0;
  }

  async leaseRelease(params: { name: string; owner: string }): Promise<void> {
    await this.sql.run(this.pool, 'leaseRelease', [params.name, params.owner]);
  }

  // ---------------------------------------------------------------- lifecycle

  async ping(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (error) {
      throw toOjsError(error, 'ping');
    }
  }

  async reset(): Promise<void> {
    await this.sql.run(this.pool, 'reset', [], { oneOff: true });
  }

  /** Refreshes planner statistics of the jobs table now. */
  async analyze(): Promise<void> {
    try {
      await this.pool.query(`ANALYZE "${this.schema}".jobs`);
      const { rows } = await this.pool.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass`, [`"${this.schema}".jobs`]);
      this.rowsAtAnalyze = Math.max(0, rows[0]?.n ?? 0);
    } catch (error) {
      throw toOjsError(error, 'analyze');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.events?.close();
    await this.analyzing;
    if (this.ownsPool) await this.pool.end();
    this.pool.off('error', this.onPoolError);
  }

  /**
   * Runs a listing statement planned for the values given. Its filters are optional (`$1 IS NULL OR queue =
   * $1`): planned for the values, a state filter reads that state's partial index; a generic plan (what
   * `SESSION_SETTINGS` asks of the pool's connections) would scan the table. So it runs in a transaction of its
   * own that sets the server back to choosing (an unnamed statement is then planned for its values).
   */
  private listing<R extends QueryResultRow>(name: string, values: unknown[]): Promise<R[]> {
    return atomically(this.pool, undefined, async (on) => {
      try {
        await on.query({ text: 'SET LOCAL plan_cache_mode = auto' });
      } catch (error) {
        throw toOjsError(error, name);
      }
      return this.sql.run<R>(on, name, values, { oneOff: true });
    });
  }

  /** Starts a background ANALYZE once enough jobs arrived since the last one. */
  private countInserts(n: number): void {
    if (this.analyzeAfter <= 0 || this.closed) return;
    this.insertedSinceAnalyze += n;
    if (this.analyzing !== undefined) return;
    if (this.insertedSinceAnalyze < Math.max(this.analyzeAfter, this.rowsAtAnalyze * 0.1)) return;
    this.insertedSinceAnalyze = 0;
    this.analyzing = this.analyze()
      .catch(() => {}) // best effort: autovacuum analyzes too
      .finally(() => {
        this.analyzing = undefined;
      });
  }
}

/** Orders two bigint sequence numbers given as decimal strings. */
function compareSeq(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The summary of a promoted job, with the state it left. */
function promotedSummary(row: JobRow & { from_state: JobState | null }): JobSummary {
  return { ...summaryFromRow(row), ...(row.from_state !== null ? { from: row.from_state } : {}) };
}

interface QueueRow {
  name: string;
  paused: boolean;
  created_at: string;
  paused_at: string | null;
  resumed_at: string | null;
}

function queueFromRow(row: QueueRow): QueueRecord {
  return {
    name: row.name,
    paused: row.paused,
    created_at: row.created_at,
    ...(row.paused_at !== null ? { paused_at: row.paused_at } : {}),
    ...(row.resumed_at !== null ? { resumed_at: row.resumed_at } : {}),
  };
}

interface WorkerRow {
  directive: WorkerRecord['directive'];
  doc: Omit<WorkerRecord, 'directive'>;
}

function workerFromRow(row: WorkerRow): WorkerRecord {
  return { ...row.doc, directive: row.directive };
}
