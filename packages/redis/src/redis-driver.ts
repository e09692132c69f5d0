/** RedisDriver: the ojskit Driver over ioredis, every primitive one Lua script. */
import { Redis } from 'ioredis';
import { OjsError, type Job } from '@ojskit/core';
import {
  completionOp,
  failureOp,
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
  type InsertOutcome,
  type InsertParams,
  type InsertResult,
  type JobHistory,
  type JobListParams,
  type JobState,
  type JobSummary,
  type PruneParams,
  type QueueConfigRecord,
  type RateLimitState,
  queueClaimLimitOf,
  queueRecordsHistory,
  type QueueRecord,
  type StoredJob,
  type TransitionOp,
  type TransitionResult,
  type WorkerRecord,
  type WorkflowRecord,
} from '@ojskit/core/driver';
import { decodeClaimedJobs, decodeJob, decodeStoredJob, decodeSummary, encodeEnvelopeValue, encodeStoredJob } from './codec.js';
import { toDriverError } from './errors.js';
import { RedisEventTransport } from './event-transport.js';
import { memoryPolicyWarning, readMemoryPolicy, type MemoryPolicyReport } from './memory-policy.js';
import { parseOptions, type DriverLogger, type RedisDriverOptions } from './options.js';
import { Coalescer } from './coalescer.js';
import { ScriptRunner } from './script-runner.js';
import { decodeTransitionReply, pushTransitionBatch } from './transition-args.js';
import { decodeHistoryLine } from './history-line.js';
import { decodeCompletionReply, pushCompletionBatch, type CasArgs, type ClaimHint } from './completion-args.js';

const CAPABILITIES: DriverCapabilities = Object.freeze({
  transactionalEnqueue: false,
  crossProcessEvents: true,
  uniqueStrength: 'strong',
  durable: true,
  // One connection runs every command in the order written; jobClaim sends coalesced calls still waiting first.
  orderedCalls: true,
  rateLimiting: true,
  // Every script that changes a job's state appends its history line (lib/history.lua).
  history: true,
});

/** How often `cronAdvance` re-reads a record that changed under it (without its occurrence changing). */
const CRON_CAS_ATTEMPTS = 10;

/**
 * Jobs per coalesced insert call before it is sent without waiting for more. Smaller chunks pay the script's
 * fixed cost more often; one chunk for every producer leaves Redis idle while this process works (measured
 * with 10–200 producers, 2026-11-22: 16 and 25 jobs beat 50 and 1 000; see README "Batching").
 */
const INSERT_CHUNK_JOBS = 25;

/**
 * Claims and batches of transitions are written to the socket as they are made, not corked until the end of
 * the tick like one-job calls. A worker asks for its next batch before it runs the one it holds; corked, that
 * claim left only after the whole batch had run and been acknowledged in the same tick, and the two sides took
 * turns (each idle about a third of the time while processing). Written at once, Redis claims while this
 * process works (SDK worker, no-op jobs at concurrency 50, 16 alternating rounds, 2026-11-25: 44.0k against
 * 36.2k jobs/s, 14 rounds of 16 faster; see BENCHMARKS.md "Batches written at once").
 */
const BATCHES_GO_AT_ONCE = true;

/** Most claimed jobs whose queue the driver remembers for their next transition (oldest forgotten first). */
const QUEUE_HINTS_MAX = 100_000;

type Flat = string[];
type Row = Array<string | null | false>;
/** job-claim.lua's (and job-claim-dispatched.lua's) reply: claimed (flat), promoted, expired, held, historyOff. */
type ClaimReply = [Array<string | number | null>, Row[], Flat[], number | null | undefined, string[] | undefined];

/**
 * The Redis driver. Jobs are hashes; indexes are sorted sets per queue (keys hash-tagged `{queue}`); every
 * state change is one Lua script that checks the guard and moves the indexes atomically (see README for the
 * key layout and the script list). Events cross processes over pub/sub.
 *
 * @example
 * const driver = new RedisDriver({ url: 'redis://127.0.0.1:6379', prefix: 'myapp' });
 * const engine = new Engine({ driver });
 */
export class RedisDriver implements Driver {
  readonly name = 'redis';
  readonly capabilities: DriverCapabilities;
  readonly events: RedisEventTransport;
  /** The key prefix (every key is `<prefix>:…`). */
  readonly prefix: string;
  /** The command connection. */
  readonly redis: Redis;
  /** Settles once the start-up `maxmemory-policy` check ran (null when disabled or Redis was unreachable). */
  readonly startup: Promise<MemoryPolicyReport | null>;

  private readonly scripts: ScriptRunner;
  /** Whether the scripts append history lines (`RedisDriverOptions.history`). */
  private readonly history: boolean;
  /**
   * Concurrent one-job inserts go in script calls of about INSERT_CHUNK_JOBS, each sent as soon as it is full:
   * Redis inserts one chunk while this process prepares the next (50 producers: +40 % jobs/s against one call).
   */
  private readonly inserts = new Coalescer<InsertParams, InsertResult>(
    (batch, full) => this.insertBatch(batch, full),
    INSERT_CHUNK_JOBS,
    (p) => p.jobs.length,
  );
  private readonly transitions = new Coalescer<TransitionOp, TransitionResult>((batch) => this.transitionBatch(batch));
  private readonly completions = new Coalescer<TransitionOp, TransitionResult>((batch) => this.completeBatch(batch, false));
  /**
   * The queue and '@h' of each job this driver claimed, until its next transition: the ACK's script then reads
   * the job where it was claimed instead of first looking its queue up in P:ids (one command per job of a
   * batch), and completes it by compare-and-set of '@h' (completion-args.ts). A job that is no longer there
   * (moved, pruned) is looked up by id as before; one whose '@h' changed takes the usual guard.
   */
  private readonly claimedIn = new Map<string, ClaimHint>();
  private readonly takeClaimHint = (id: string): ClaimHint | undefined => {
    const hint = this.claimedIn.get(id);
    if (hint !== undefined) this.claimedIn.delete(id);
    return hint;
  };
  private readonly takeQueueHint = (id: string): string | undefined => this.takeClaimHint(id)?.queue;
  private readonly ownsConnection: boolean;
  private readonly logger: DriverLogger;
  private closed = false;
  private state: 'starting' | 'up' | 'down' = 'starting';
  /** True while connect() waits: its rejection reports a start-up failure instead of the error listener. */
  private connecting = false;

  constructor(options: RedisDriverOptions = {}) {
    const parsed = parseOptions(options);
    this.prefix = parsed.prefix;
    this.logger = options.logger ?? console;
    this.ownsConnection = options.redis === undefined;
    this.redis = options.redis ?? new Redis(parsed.url, connectionDefaults(options));
    if (this.ownsConnection) this.watchConnection(this.redis);
    const dispatchLog = options.dispatchLog === true;
    this.history = options.history !== false;
    this.capabilities = dispatchLog || !this.history ? Object.freeze({ ...CAPABILITIES, dispatchLog, history: this.history }) : CAPABILITIES;
    this.scripts = new ScriptRunner(this.redis, { dispatchLog, history: this.history });
    this.events = new RedisEventTransport({
      publisher: this.redis,
      createReader: () => this.watchConnection(this.redis.duplicate()),
      stream: `${this.prefix}:events`,
      maxLen: parsed.eventStreamMaxLen,
      publishDelayMs: parsed.eventPublishDelayMs,
      // While the connection is down, the transport's failures are that outage, already reported once.
      onError: (error) => {
        if (this.state !== 'down') this.logger.error?.(`@ojskit/redis: event transport error: ${(error as Error)?.message ?? String(error)}`);
      },
    });
    this.startup = parsed.checkMemoryPolicy ? this.checkMemoryPolicy().catch(() => null) : Promise.resolve(null);
  }

  /** Reads Redis's `maxmemory-policy` and warns loudly through the logger unless it is `noeviction`. */
  async checkMemoryPolicy(): Promise<MemoryPolicyReport> {
    const report = await readMemoryPolicy(this.redis);
    if (!report.ok) this.logger.warn(memoryPolicyWarning(report.policy));
    return report;
  }

  /**
   * Logs one line per change of connection state, for all the driver's connections together: "lost" at the
   * first error after being up (ioredis emits one per reconnect attempt, and prints "Unhandled error event"
   * without a listener), "restored" at the next `ready`. Never a stack: an unreachable server is an operating
   * condition, not a bug. Also fails commands lost in a dropped connection.
   */
  private watchConnection(connection: Redis): Redis {
    connection.on('error', (error: Error) => {
      if (this.state === 'down' || this.closed) return;
      const wasStarting = this.state === 'starting';
      this.state = 'down';
      // While connect() waits, its rejection is the report (the gateway prints it and exits).
      if (wasStarting && this.connecting) return;
      this.logger.error?.(
        `@ojskit/redis: connection to ${this.address} ${wasStarting ? 'failed' : 'lost'} (${error.message}); retrying quietly until it is back`,
      );
    });
    connection.on('ready', () => {
      if (this.state === 'down' && !this.closed) this.logger.warn(`@ojskit/redis: connection to ${this.address} restored`);
      this.state = 'up';
    });
    if (connection.options.autoResendUnfulfilledCommands === false) {
      connection.on('reconnecting', () => failUnfulfilled(connection));
    }
    return connection;
  }

  /** Whether the driver's connections are up, as far as it knows (`down` from an error until the next ready). */
  get connectionState(): 'starting' | 'up' | 'down' {
    return this.state;
  }

  /**
   * Resolves once the command connection is ready; on the first failure rejects with one clear error naming
   * the server, and closes the driver. For start-up, where an unreachable server should stop the program with
   * one line rather than let it run and retry (the gateway's `--backend redis://…` uses it).
   * @example await createRedisDriver('redis://127.0.0.1:6379').connect();
   */
  async connect(timeoutMs = 10_000): Promise<this> {
    if (this.redis.status === 'ready') return this;
    this.connecting = true;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        const onReady = () => done();
        const onError = (error: Error) => done(error);
        const done = (error?: Error) => {
          clearTimeout(timer);
          this.redis.off('ready', onReady);
          this.redis.off('error', onError);
          if (error) reject(error);
          else resolve();
        };
        this.redis.once('ready', onReady);
        this.redis.once('error', onError);
      });
    } catch (error) {
      this.redis.disconnect();
      await this.close().catch(() => undefined);
      throw new Error(`Redis at ${this.address} is unreachable (${(error as Error).message}). Is redis-server running there, and is the URL right?`, {
        cause: error,
      });
    } finally {
      this.connecting = false;
    }
    return this;
  }

  /** host:port of the command connection, for messages (never the password). */
  private get address(): string {
    const { host, port, path } = this.redis.options;
    return path ? path : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
  }

  // ---------------------------------------------------------------- jobs

  /** Concurrent calls made together share one script call (each keeps its own atomicity). */
  jobInsert(params: InsertParams): Promise<InsertResult> {
    return this.inserts.call(params);
  }

  private async insertBatch(batch: readonly InsertParams[], full: boolean): Promise<InsertResult[]> {
    const args: Array<string | number> = [this.prefix, batch.length];
    for (const params of batch) {
      // '*': the engine has not read the configurations yet; the script reads each queue's own (P:queue-config)
      const bounds = params.bounds === undefined ? '' : params.bounds === 'stored' ? '*' : JSON.stringify(params.bounds);
      args.push(params.now, params.nowIso, params.jobs.length, bounds);
      pushJobs(params.jobs, args);
    }
    const replies = list((await this.scripts.run('job-insert', args, full)) as Array<unknown[] | 1>);
    return batch.map((params, g) => decodeInsertReply(replies[g]!, params));
  }

  async jobClaim(params: ClaimParams): Promise<ClaimResult> {
    if (params.dispatched === true) return this.claimDispatched(params);
    if (params.limit <= 0 || params.queues.length === 0) return { jobs: [], promoted: [], expired: [] };
    // Calls run in the order they are made (capabilities.orderedCalls): an insert or transition made before
    // this claim but still waiting to be coalesced goes out ahead of it.
    this.inserts.flushNow();
    this.transitions.flushNow();
    this.completions.flushNow();
    // Written at once, not at the end of the tick: a worker asks for its next batch before running the one it
    // holds, and Redis should claim it meanwhile (see BATCHES_GO_AT_ONCE).
    const reply = (await this.scripts.run(
      'job-claim',
      [this.prefix, params.limit, params.workerId, params.now, params.nowIso, params.visibilityMs ?? '', ...params.queues],
      BATCHES_GO_AT_ONCE,
    )) as ClaimReply;
    return this.claimResult(reply);
  }

  /** A claim's reply (job-claim.lua's form), with each claimed job's queue and '@h' kept for its ACK. */
  private claimResult(reply: ClaimReply): ClaimResult {
    // queues the claim said opt out of history: their ACKs send no history line (completion-args.ts)
    const historyOff = reply[4];
    const jobs = decodeClaimedJobs(list(reply[0]), (job, hot) =>
      this.claimedIn.set(
        job.id,
        historyOff !== undefined && historyOff.includes(job.queue) ? { queue: job.queue, hot, history: false } : { queue: job.queue, hot },
      ),
    );
    if (this.claimedIn.size > QUEUE_HINTS_MAX) {
      for (const id of this.claimedIn.keys()) {
        this.claimedIn.delete(id);
        if (this.claimedIn.size <= QUEUE_HINTS_MAX) break;
      }
    }
    const result: ClaimResult = { jobs, promoted: list(reply[1]).map(decodePromoted), expired: list(reply[2]).map(decodeJob) };
    return withHeld(result, reply[3]);
  }

  /** A claim of the jobs a dispatch log delivered (`ClaimParams.dispatched`), as job-claim-dispatched.lua. */
  private async claimDispatched(params: ClaimParams): Promise<ClaimResult> {
    if (this.capabilities.dispatchLog !== true) {
      throw OjsError.unsupported('A claim of dispatched jobs needs a driver created with dispatchLog: true.');
    }
    if (params.limit <= 0 || params.queues.length === 0) return { jobs: [], promoted: [], expired: [] };
    this.inserts.flushNow();
    this.transitions.flushNow();
    this.completions.flushNow();
    const reply = (await this.scripts.run(
      'job-claim-dispatched',
      [this.prefix, params.limit, params.workerId, params.now, params.nowIso, params.visibilityMs ?? '', ...params.queues],
      BATCHES_GO_AT_ONCE,
    )) as ClaimReply;
    return this.claimResult(reply);
  }

  /**
   * ACKs, as job-complete-many.lua. Lone ACKs made together (single ACKs from many workers) share one script
   * call; a batch is written at once (see BATCHES_GO_AT_ONCE).
   */
  async jobCompleteMany(params: CompleteManyParams): Promise<TransitionResult[]> {
    const { jobs, now, nowIso } = params;
    const returning = params.returning ?? 'job';
    if (jobs.length === 0) return [];
    if (jobs.length === 1) return [await this.completions.call(completionOp(jobs[0]!, now, nowIso, returning))];
    return this.completeBatch(
      jobs.map((item) => completionOp(item, now, nowIso, returning)),
      BATCHES_GO_AT_ONCE,
    );
  }

  private async completeBatch(ops: readonly TransitionOp[], atOnce: boolean): Promise<TransitionResult[]> {
    const args: Array<string | number> = [this.prefix];
    const cas: CasArgs = { raw: [], ops: [], history: this.history };
    pushCompletionBatch(ops, args, this.takeClaimHint, cas);
    const replies = list((await this.scripts.run('job-complete-many', args, atOnce, cas.raw)) as unknown[]);
    return replies.map((reply, i) => decodeCompletionReply(reply, ops[i]!, cas.ops[i]));
  }

  /** FAILs, requeues, timeouts and reclaims: core's ops for each outcome, as job-transition(-many).lua. */
  async jobFailMany(params: FailManyParams): Promise<TransitionResult[]> {
    const { jobs, now, nowIso } = params;
    if (jobs.length === 0) return [];
    if (jobs.length === 1) return [await this.transitions.call(failureOp(jobs[0]!, now, nowIso))];
    return this.transitionMany(jobs.map((item) => failureOp(item, now, nowIso)));
  }

  /** Concurrent calls made together share one script call. */
  jobTransition(op: TransitionOp): Promise<TransitionResult> {
    return this.transitions.call(op);
  }

  private async transitionBatch(ops: readonly TransitionOp[]): Promise<TransitionResult[]> {
    if (ops.length > 1) return this.transitionMany(ops);
    const args: Array<string | number> = [this.prefix];
    pushTransitionBatch(ops, args, this.takeQueueHint);
    return [decodeTransitionReply(await this.scripts.run('job-transition', args), ops[0]!)];
  }

  private async transitionMany(ops: readonly TransitionOp[]): Promise<TransitionResult[]> {
    const args: Array<string | number> = [this.prefix];
    pushTransitionBatch(ops, args, this.takeQueueHint);
    const replies = list((await this.scripts.run('job-transition-many', args, BATCHES_GO_AT_ONCE)) as unknown[]);
    return replies.map((reply, i) => decodeTransitionReply(reply, ops[i]!));
  }

  async jobGet(id: string): Promise<StoredJob | null> {
    const fields = (await this.scripts.run('job-get', [this.prefix, id])) as Flat | null;
    return fields ? decodeStoredJob(fields) : null;
  }

  /** The lines job-history.lua reads in one step (lib/history.lua has the layout). */
  async jobHistory(params: { id: string }): Promise<JobHistory | null> {
    const reply = (await this.scripts.run('job-history', [this.prefix, params.id])) as [string[], number] | null;
    if (!reply) return null;
    return { entries: reply[0].map(decodeHistoryLine), dropped: reply[1] };
  }

  async jobList(params: JobListParams): Promise<{ jobs: Job[]; total: number }> {
    const [total, page] = (await this.scripts.run('job-list', [
      this.prefix,
      params.queue ?? '',
      params.state ?? '',
      params.type ?? '',
      params.deadLetter === undefined ? '' : params.deadLetter ? '1' : '0',
      params.limit,
      params.offset,
      params.createdFrom ?? '',
      params.createdBefore ?? '',
    ])) as [number, Flat[]];
    return { jobs: page.map(decodeJob), total };
  }

  async jobDelete(params: { id: string; expect?: { states?: readonly JobState[]; deadLetter?: boolean } }): Promise<Job | null> {
    const states = params.expect?.states;
    const dl = params.expect?.deadLetter;
    const fields = (await this.scripts.run('job-delete', [
      this.prefix,
      params.id,
      states === undefined ? '' : `,${states.join(',')},`,
      dl === undefined ? '' : dl ? '1' : '0',
    ])) as Flat | null;
    return fields ? decodeJob(fields) : null;
  }

  async jobHeartbeat(params: HeartbeatParams): Promise<HeartbeatResult> {
    if (params.ids.length === 0) return { extended: [], states: {} };
    const [extendedRows, stateRows] = (await this.scripts.run('job-heartbeat', [
      this.prefix,
      params.now,
      params.visibilityMs ?? '',
      params.workerId ?? '',
      ...params.ids,
    ])) as [Row[], Array<string | null>];
    const extended = extendedRows.map((row) => {
      const summary = decodeSummary(row);
      return { ...summary, visibleUntil: Number(row[6]), ...(row[7] ? { worker_id: row[7] } : {}) };
    });
    const states: Record<string, JobState | null> = {};
    params.ids.forEach((id, i) => {
      states[id] = (stateRows[i] as JobState | null) ?? null;
    });
    return { extended, states };
  }

  async jobPromote(params: { now: number; nowIso: string; limit: number }): Promise<{ promoted: JobSummary[]; expired: Job[] }> {
    const [promoted, expired] = (await this.scripts.run('job-promote', [this.prefix, params.now, params.nowIso, params.limit])) as [Row[], Flat[]];
    return { promoted: promoted.map(decodePromoted), expired: expired.map(decodeJob) };
  }

  async jobExpire(params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
    const rows = (await this.scripts.run('job-expire', [this.prefix, params.now, params.nowIso, params.limit])) as Flat[];
    return rows.map(decodeJob);
  }

  async jobListOverdue(params: { now: number; limit: number }): Promise<StoredJob[]> {
    const rows = (await this.scripts.run('job-list-overdue', [this.prefix, params.now, params.limit])) as Flat[];
    return rows.map(decodeStoredJob);
  }

  async jobPrune(params: PruneParams): Promise<number> {
    return (await this.scripts.run('job-prune', [
      this.prefix,
      params.before,
      params.limit,
      params.deadLetter === 'only' ? 'only' : params.deadLetter ? '1' : '0',
      params.state ?? '',
      params.queue ?? '',
      ...(params.queue === undefined ? (params.exceptQueues ?? []) : []),
    ])) as number;
  }

  async jobCounts(params: { queue?: string }): Promise<Record<JobState, number>> {
    const counts = (await this.scripts.run('job-counts', [this.prefix, params.queue ?? ''])) as number[];
    return Object.fromEntries(JOB_STATES.map((s, i) => [s, counts[i] ?? 0])) as Record<JobState, number>;
  }

  // ---------------------------------------------------------------- queues

  async queueList(): Promise<QueueRecord[]> {
    const rows = (await this.scripts.run('queue-list', [this.prefix])) as Flat[];
    return rows.map(decodeQueue);
  }

  async queueGet(name: string): Promise<QueueRecord | null> {
    const fields = (await this.scripts.run('queue-get', [this.prefix, name])) as Flat;
    return fields.length === 0 ? null : decodeQueue(fields);
  }

  async queueSetPaused(params: { name: string; paused: boolean; nowIso: string }): Promise<QueueRecord> {
    const fields = (await this.scripts.run('queue-set-paused', [this.prefix, params.name, params.paused ? '1' : '0', params.nowIso])) as Flat;
    return decodeQueue(fields);
  }

  // ---------------------------------------------------------------- workers

  async queueConfigGet(name: string): Promise<QueueConfigRecord | null> {
    const text = (await this.scripts.run('queue-config-get', [this.prefix, name])) as string | null;
    return text ? (JSON.parse(text) as QueueConfigRecord) : null;
  }

  async queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord> {
    const limit = queueClaimLimitOf(record);
    const text = (await this.scripts.run('queue-config-set', [
      this.prefix,
      record.name,
      JSON.stringify(record),
      record.updated_at,
      limit.intervalMs !== undefined ? String(limit.intervalMs) : '',
      limit.concurrency !== undefined ? String(limit.concurrency) : '',
      record.age_boost !== undefined ? String(record.age_boost.interval_ms) : '',
      queueRecordsHistory(record) ? '' : '1',
    ])) as string;
    return JSON.parse(text) as QueueConfigRecord;
  }

  async rateLimitState(params: { queue: string; now: number }): Promise<RateLimitState> {
    const [now, at, ivl, active, flat] = (await this.scripts.run('rate-limit-state', [this.prefix, params.queue])) as [
      string,
      string | null,
      string | null,
      number,
      Array<string | number>,
    ];
    const keys: RateLimitState['keys'] = [];
    for (let i = 0; i < flat.length; i += 3) keys.push({ key: String(flat[i]), active: Number(flat[i + 1]), concurrency: Number(flat[i + 2]) });
    return { now: Number(now), lastClaimAt: at === null ? null : Number(at), intervalMs: ivl === null ? null : Number(ivl), queueActive: active, keys };
  }

  async queueConfigList(): Promise<QueueConfigRecord[]> {
    const flat = (await this.scripts.run('queue-config-list', [this.prefix])) as Flat;
    const out: QueueConfigRecord[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push(JSON.parse(flat[i + 1]!) as QueueConfigRecord);
    return out;
  }

  async workerRecord(info: Omit<WorkerRecord, 'directive'>): Promise<WorkerRecord> {
    const { directive: _ignored, ...record } = info as WorkerRecord;
    const directive = (await this.scripts.run('worker-record', [this.prefix, info.id, JSON.stringify(record)])) as WorkerRecord['directive'];
    return { ...(JSON.parse(JSON.stringify(record)) as Omit<WorkerRecord, 'directive'>), directive };
  }

  async workerSetDirective(params: { id: string; directive: WorkerRecord['directive']; nowIso: string; now: number }): Promise<WorkerRecord> {
    // An operator may address a worker before its first heartbeat; the directive waits for it.
    const fallback: Omit<WorkerRecord, 'directive'> = {
      id: params.id,
      state: params.directive,
      last_heartbeat_at: params.nowIso,
      lastHeartbeatMs: params.now,
      active_job_ids: [],
    };
    const stored = (await this.scripts.run('worker-set-directive', [this.prefix, params.id, params.directive, JSON.stringify(fallback)])) as string;
    return { ...(JSON.parse(stored) as Omit<WorkerRecord, 'directive'>), directive: params.directive };
  }

  async workerList(): Promise<WorkerRecord[]> {
    const [records, directives] = (await this.scripts.run('worker-list', [this.prefix])) as [Flat, Flat];
    const byId = new Map<string, string>();
    for (let i = 0; i < directives.length; i += 2) byId.set(directives[i]!, directives[i + 1]!);
    const out: WorkerRecord[] = [];
    for (let i = 0; i < records.length; i += 2) {
      const record = JSON.parse(records[i + 1]!) as Omit<WorkerRecord, 'directive'>;
      out.push({ ...record, directive: (byId.get(records[i]!) ?? 'running') as WorkerRecord['directive'] });
    }
    return out;
  }

  async workerDelete(id: string): Promise<void> {
    await this.scripts.run('worker-delete', [this.prefix, id]);
  }

  // ---------------------------------------------------------------- cron

  async cronUpsert(record: CronRecord): Promise<{ created: boolean }> {
    const created = (await this.scripts.run('cron-upsert', [this.prefix, record.name, JSON.stringify(record)])) as number;
    return { created: created === 1 };
  }

  async cronGet(name: string): Promise<CronRecord | null> {
    const raw = (await this.scripts.run('cron-get', [this.prefix, name])) as string | null;
    return raw === null ? null : (JSON.parse(raw) as CronRecord);
  }

  async cronList(): Promise<CronRecord[]> {
    const flat = (await this.scripts.run('cron-get', [this.prefix, ''])) as Flat;
    const out: CronRecord[] = [];
    for (let i = 1; i < flat.length; i += 2) out.push(JSON.parse(flat[i]!) as CronRecord);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async cronDelete(name: string): Promise<CronRecord | null> {
    const raw = (await this.scripts.run('cron-delete', [this.prefix, name])) as string | null;
    return raw === null ? null : (JSON.parse(raw) as CronRecord);
  }

  async cronAdvance(params: { name: string; expectNextRunMs: number | null; patch: Partial<CronRecord> }): Promise<boolean> {
    // Lua never parses records (its JSON codec rounds numbers), so the compare-and-set is on the stored bytes:
    // read, check the occurrence, write back only if nothing changed in between.
    for (let attempt = 0; attempt < CRON_CAS_ATTEMPTS; attempt++) {
      const raw = (await this.scripts.run('cron-get', [this.prefix, params.name])) as string | null;
      if (raw === null) return false;
      const record = JSON.parse(raw) as CronRecord;
      if (record.nextRunMs !== params.expectNextRunMs) return false;
      const next = JSON.stringify({ ...record, ...params.patch, name: record.name });
      if ((await this.scripts.run('cron-advance', [this.prefix, params.name, raw, next])) === 1) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- workflows

  async workflowGet(id: string): Promise<WorkflowRecord | null> {
    const raw = (await this.scripts.run('workflow-get', [this.prefix, id])) as string | null;
    return raw === null ? null : (JSON.parse(raw) as WorkflowRecord);
  }

  async workflowSave(params: { workflow: WorkflowRecord; expectVersion: number | null; insert?: StoredJob[]; now: number; nowIso: string }): Promise<boolean> {
    const jobs = params.insert ?? [];
    const args: Array<string | number> = [
      this.prefix,
      params.now,
      params.nowIso,
      params.workflow.id,
      params.expectVersion === null ? '' : String(params.expectVersion),
      String(params.workflow.version),
      JSON.stringify(params.workflow),
      jobs.length,
    ];
    pushJobs(jobs, args);
    return (await this.scripts.run('workflow-save', args)) === 1;
  }

  // ---------------------------------------------------------------- leases

  async leaseAcquire(params: { name: string; owner: string; ttlMs: number; now: number }): Promise<boolean> {
    return (await this.scripts.run('lease-acquire', [this.prefix, params.name, params.owner, params.now, params.ttlMs])) === 1;
  }

  async leaseRelease(params: { name: string; owner: string }): Promise<void> {
    await this.scripts.run('lease-release', [this.prefix, params.name, params.owner]);
  }

  // ---------------------------------------------------------------- lifecycle

  async ping(): Promise<void> {
    try {
      await this.redis.ping();
    } catch (error) {
      throw toDriverError(error, 'ping');
    }
  }

  /** Deletes every key under the prefix (SCAN + UNLINK: not atomic, meant for tests and admin resets). */
  async reset(): Promise<void> {
    try {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await this.redis.unlink(...keys);
      } while (cursor !== '0');
    } catch (error) {
      throw toDriverError(error, 'reset');
    }
  }

  /** Closes the event subscription and, when the driver opened it, the command connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.events.close();
    if (this.ownsConnection) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** Defaults for connections the driver opens; see README ("Failures"). */
function connectionDefaults(options: RedisDriverOptions) {
  return {
    // A command sent on a connection that then drops is failed, never silently re-sent: the caller decides
    // (re-sending a claim would hand out jobs nobody receives; re-sending an insert would report a duplicate).
    autoResendUnfulfilledCommands: false,
    // Commands issued while disconnected wait for a few reconnect attempts, then fail with a clear error.
    maxRetriesPerRequest: 3,
    // Commands issued in the same tick still share one socket write (the driver corks the socket until the next
    // tick: write-coalescing.ts); ioredis' auto-pipelining did the same at the cost of a Pipeline object per tick.
    enableAutoPipelining: false,
    ...options.connection,
  };
}

/** ioredis internals: commands that were written to a connection that then closed. */
interface UnfulfilledQueue {
  prevCommandQueue?: { length: number; shift(): { command: { reject(error: Error): void } } | undefined } | null;
}

/**
 * With `autoResendUnfulfilledCommands: false`, ioredis 5 forgets the commands a dropped connection had sent
 * without settling their promises: callers would wait forever. They are failed here instead, as soon as the
 * connection starts reconnecting (the command may or may not have run: the caller's retry meets a guarded
 * compare-and-set, so at worst it gets a conflict).
 */
function failUnfulfilled(connection: Redis): void {
  const internals = connection as unknown as UnfulfilledQueue;
  const queue = internals.prevCommandQueue;
  if (!queue || queue.length === 0) return;
  const error = new Error('Connection is closed: the command was sent but no reply came; it may or may not have been applied.');
  for (let item = queue.shift(); item; item = queue.shift()) item.command.reject(error);
  internals.prevCommandQueue = null;
}

/** Internals that make a job non-plain for lib/insert.lua (its plan or indexes read them from the pairs). */
const INDEXED_INTERNALS = ['uniqueKey', 'dueAt', 'expiresAt', 'visibleUntil', 'timeoutAt', 'finishedAt', 'deadLetter'] as const;

/** Appends job records as lib/insert.lua reads them (a header, then the hash's pairs). */
function pushJobs(jobs: readonly StoredJob[], args: Array<string | number>): void {
  for (const stored of jobs) {
    const fields = encodeStoredJob(stored);
    const { job, x } = stored;
    const plain = INDEXED_INTERNALS.every((key) => x[key] === undefined || x[key] === null);
    args.push(fields.length / 2, job.id, job.queue, job.state, encodeEnvelopeValue('priority', job.priority) ?? '', plain ? 1 : 0);
    for (const f of fields) args.push(f);
  }
}

function decodeInsertReply(reply: unknown[] | 1, params: InsertParams): InsertResult {
  if (reply === 1) return { ok: true, outcomes: params.jobs.map((stored) => ({ status: 'inserted', job: { ...stored.job } })) };
  if (reply[0] === 'abort' && reply[2] === 'queue_full') {
    const [, index, , queue, depth, bound] = reply as [string, number, string, string, number, number];
    return { ok: false, index, reason: 'queue_full', queue, depth, bound };
  }
  if (reply[0] === 'abort') {
    const [, index, reason, fields, batchIndex] = reply as [string, number, 'duplicate_id' | 'unique', Flat | false, number | false];
    const existing = fields ? decodeJob(fields) : { ...params.jobs[typeof batchIndex === 'number' ? batchIndex : index]!.job };
    return { ok: false, index, reason, existing };
  }
  const rows = list(reply[1] as unknown[][]);
  const outcomes: InsertOutcome[] = rows.map((row, n) => {
    if (row[0] === 'existing') return { status: 'existing', job: decodeJob(row[1] as Flat) };
    const job: Job = { ...params.jobs[n]!.job };
    const [, replaced, takenScheduledAt] = row as [string, Flat | false, string | false, unknown];
    if (takenScheduledAt) {
      job.state = STATE_ROLES.scheduled;
      job.scheduled_at = takenScheduledAt;
      delete job.enqueued_at;
    }
    return replaced ? { status: 'inserted', job, replaced: decodeJob(replaced) } : { status: 'inserted', job };
  });
  const depths = reply[2] as Record<string, number> | undefined;
  return depths === undefined ? { ok: true, outcomes } : { ok: true, outcomes, depths };
}

/** A Lua array from a JSON reply: cjson encodes an empty table as `{}`. */
/** A claim's `held` hint from its script's reply (nil, or the ms until the spacing that held a job ends; 0: concurrency only). */
function withHeld(result: ClaimResult, held: unknown): ClaimResult {
  if (typeof held === 'number') result.held = held > 0 ? { retryInMs: held } : {};
  return result;
}

function list<T>(value: T[]): T[] {
  return Array.isArray(value) ? value : [];
}

function decodePromoted(row: Row): JobSummary {
  const summary = decodeSummary(row);
  if (row[6]) summary.from = row[6] as JobState;
  return summary;
}

function decodeQueue(flat: Flat): QueueRecord {
  const f: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
  const record: QueueRecord = { name: f.name!, paused: f.paused === '1', created_at: f.created_at! };
  if (f.paused_at) record.paused_at = f.paused_at;
  if (f.resumed_at) record.resumed_at = f.resumed_at;
  return record;
}
