/**
 * The Kafka driver: a store driver (Redis or PostgreSQL, created with `dispatchLog: true`) as the source of
 * truth, Kafka as the dispatch log. Every primitive the store already does is the store's; this driver adds
 * the relay (jobs that became `available` → the dispatch topic), the dispatcher (delivered records →
 * `pending`, then the offset commit) and a claim that takes only dispatched `pending` jobs.
 */
import { OjsError, type Job, type OjsEvent } from '@ojskit/core';
import {
  STATE_ROLES,
  type ClaimParams,
  type ClaimResult,
  type CompleteManyParams,
  type CronRecord,
  type Driver,
  type DriverCapabilities,
  type EventTransport,
  type FailManyParams,
  type HeartbeatParams,
  type HeartbeatResult,
  type InsertParams,
  type InsertResult,
  type JobHistory,
  type JobListParams,
  type JobSummary,
  type PruneParams,
  type QueueConfigRecord,
  type QueueRecord,
  type RateLimitState,
  type StoredJob,
  type TransitionOp,
  type TransitionResult,
  type WorkerRecord,
  type WorkflowRecord,
} from '@ojskit/core/driver';
import { randomUUID } from 'node:crypto';
import { createKafkajsClient } from '../port/kafkajs/client.js';
import type { KafkaClient, KafkaProducer, ProduceRecord } from '../port/types.js';
import { claimDispatched, expireDispatched, type DispatchedClaim } from './dispatched-claim.js';
import { Dispatcher } from './dispatcher.js';
import { dispatchTopic, eventsTopic } from './dispatch-record.js';
import { InFlight, type InFlightEntry } from './in-flight.js';
import { Relay } from './relay.js';

/** Where a promotion, an ACTIVATE, a requeue or a dead-letter retry puts a job: what the relay produces. */
const READY = STATE_ROLES.promoted;

export interface KafkaDriverOptions {
  /** Bootstrap brokers, `host:port` (or pass `client`). */
  brokers?: string[];
  /** A port client to use instead of a kafkajs one on `brokers`. */
  client?: KafkaClient;
  /** The state store: an ojskit driver created with `dispatchLog: true` (`createRedisDriver(url, { dispatchLog: true })`). */
  store: Driver;
  /** Topic prefix: `<prefix>.dispatch`, `<prefix>.events` (default `ojs`). */
  prefix?: string;
  /** Partitions of the dispatch and events topics when the driver creates them (default 4). */
  partitions?: number;
  /** Run a dispatcher in this process (default true). Several processes split the dispatch topic's partitions. */
  dispatcher?: boolean;
  /** How long a claim waits for jobs this process handed to the log to be dispatched (ms, default 2000). */
  claimWaitMs?: number;
  /** A job `available` longer than this is produced again by the relay's sweep (ms, default 30 000). */
  sweepAfterMs?: number;
  /** How often the sweep runs (ms, default 10 000; 0 disables it). */
  sweepIntervalMs?: number;
  /** Mirror every event to `<prefix>.events` (default true). */
  mirrorEvents?: boolean;
  /**
   * How events are written to `<prefix>.events`: `'queue'` (default), one record per queue of each publish whose
   * value is the JSON array of those events, key = the queue; `'event'`, one record per event, key = the job.
   * `'queue'` costs a fraction of the CPU (see the README, "Costs"); both keep a job's events in order.
   */
  eventRecords?: 'queue' | 'event';
  /**
   * Make each operation wait until its events are acknowledged on `<prefix>.events` (default false). With it,
   * every operation that emits an event waits for Kafka: while Kafka is away, enqueues, ACKs and fetches that
   * emit events wait too (see the README, "Events", for the measured cost).
   */
  awaitEventProduces?: boolean;
  /** The dispatcher's group session timeout (ms, default 10 000). */
  sessionTimeoutMs?: number;
  /**
   * The dispatcher's longest idle fetch (ms, default 10). A real broker answers as soon as a record arrives, so
   * there a longer wait (500 ms) saves idle fetches at no latency cost; the test broker answers only at its end.
   */
  maxWaitMs?: number;
  /** Where the driver and the Kafka client log (default stderr). */
  log?: (line: string) => void;
}

/**
 * Creates a Kafka driver and starts its relay and (unless disabled) its dispatcher.
 * @example
 * const store = createRedisDriver('redis://127.0.0.1:6379', { prefix: 'app', dispatchLog: true });
 * const driver = await createKafkaDriver({ brokers: ['127.0.0.1:9092'], store, prefix: 'app' });
 * const engine = new Engine({ driver });
 */
export async function createKafkaDriver(options: KafkaDriverOptions): Promise<KafkaDriver> {
  if (options.store.capabilities.dispatchLog !== true) {
    throw new Error(`@ojskit/kafka: the store driver '${options.store.name}' must be created with dispatchLog: true (it then admits the dispatch-log rows)`);
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`[ojskit kafka] ${line}\n`));
  if (!options.client && !options.brokers?.length) throw new Error('@ojskit/kafka: pass brokers or client');
  const client = options.client ?? createKafkajsClient({ brokers: options.brokers!, log });
  const prefix = options.prefix ?? 'ojs';
  const admin = await client.admin();
  try {
    await admin.ensureTopics([
      { topic: dispatchTopic(prefix), partitions: options.partitions ?? 4 },
      { topic: eventsTopic(prefix), partitions: options.partitions ?? 4 },
    ]);
  } finally {
    await admin.close();
  }
  const producer = await client.producer();
  // The events mirror gets a producer of its own: an idempotent producer has one request in flight per broker,
  // so on a shared one a job's dispatch record waited behind the produce of events published before it.
  const mirrors = options.mirrorEvents !== false && options.store.events !== undefined;
  const eventsProducer = mirrors ? await client.producer() : producer;
  const driver = new KafkaDriver(options, client, producer, log, eventsProducer);
  if (options.dispatcher !== false) await driver.startDispatcher();
  return driver;
}

export class KafkaDriver implements Driver {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  readonly events?: EventTransport;
  /** The store driver (source of truth). */
  readonly store: Driver;
  readonly prefix: string;

  private readonly inFlight = new InFlight();
  private readonly relay: Relay;
  private dispatcher: Dispatcher | null = null;
  private readonly claimWaitMs: number;
  private closed = false;
  /** Resolves once the events produced so far reached the events topic. */
  private eventsDrained: () => Promise<unknown> = () => Promise.resolve();

  /** Use `createKafkaDriver`. */
  constructor(
    private readonly options: KafkaDriverOptions,
    private readonly client: KafkaClient,
    private readonly producer: KafkaProducer,
    private readonly log: (line: string) => void,
    /** The producer of the events mirror (default: `producer`). */
    private readonly eventsProducer: KafkaProducer = producer,
  ) {
    const store = options.store;
    this.store = store;
    this.prefix = options.prefix ?? 'ojs';
    this.name = `kafka+${store.name}`;
    // Not orderedCalls: a claim made right behind an insert does not see the job until the log delivered it.
    // Rate limits and history as the store's: its claim of dispatched jobs applies the limits (a refused job stays
    // pending) and every move, the dispatch included, writes its history line in its own atomic step.
    this.capabilities = Object.freeze({ ...store.capabilities, dispatchLog: true, orderedCalls: false });
    this.claimWaitMs = options.claimWaitMs ?? 2_000;
    this.relay = new Relay({
      store,
      producer,
      prefix: this.prefix,
      sweepAfterMs: options.sweepAfterMs ?? 30_000,
      sweepIntervalMs: options.sweepIntervalMs ?? 10_000,
      owner: `kafka-relay-${randomUUID()}`,
      log,
    });
    if (store.events) this.events = options.mirrorEvents === false ? store.events : this.mirrored(store.events);
  }

  /** Joins the dispatch group (`createKafkaDriver` does unless `dispatcher: false`). */
  async startDispatcher(): Promise<void> {
    this.dispatcher = await Dispatcher.start({
      client: this.client,
      store: this.store,
      prefix: this.prefix,
      onRecorded: (ids) => this.inFlight.settle(ids),
      ...(this.events ? { publish: (events: readonly OjsEvent[]) => this.events!.publish(events) } : {}),
      log: (line) => this.log(line),
      ...(this.options.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: this.options.sessionTimeoutMs } : {}),
      ...(this.options.maxWaitMs !== undefined ? { maxWaitMs: this.options.maxWaitMs } : {}),
    });
  }

  /** Resolves once this process's dispatcher holds partitions (tests, start-up probes). */
  async dispatcherJoined(timeoutMs = 30_000): Promise<void> {
    await this.dispatcher?.joined(timeoutMs);
  }

  /**
   * Resolves true once every job this process handed to the dispatch log was recorded as delivered (or left
   * the ready state another way), leaving out the queues `except` names; false after `timeoutMs`. For tests
   * and drains that need the log caught up; a claim waits for its own queues by itself.
   * @example await driver.dispatched({ timeoutMs: 5_000 }) // true: every enqueued job is pending or beyond
   */
  dispatched(options: { timeoutMs?: number; except?: (queue: string) => boolean } = {}): Promise<boolean> {
    const except = options.except;
    return this.inFlight.idle(except === undefined ? () => true : (queue) => !except(queue), options.timeoutMs ?? 30_000);
  }

  /** Produces every job that stayed `available` longer than `sweepAfterMs` again; how many (the relay's sweep). */
  sweep(now?: number): Promise<number> {
    return this.relay.sweep(now);
  }

  // The events transport of the store, each publish also produced to `<prefix>.events` (`eventRecord`). The
  // produces run one after another behind the store's publish, not awaited by it: with Kafka away, operations
  // still answer, and the events reach the topic, in order, once it is back. Publishes made while a produce is
  // out join the next one: one request for all of them.
  private mirrored(inner: EventTransport): EventTransport {
    const topic = eventsTopic(this.prefix);
    const toRecords = this.options.eventRecords === 'event' ? eventPerRecord : eventsPerQueue;
    let chain: Promise<unknown> = Promise.resolve();
    let buffer: ProduceRecord[] = [];
    /** The produce not started yet, which later publishes join. */
    let open: Promise<unknown> | null = null;
    const awaited = this.options.awaitEventProduces === true;
    const produce = (events: readonly OjsEvent[]): Promise<unknown> => {
      for (const r of toRecords(events)) buffer.push(r);
      if (open === null) {
        const produced = chain.then(() => {
          open = null;
          const records = buffer;
          buffer = [];
          return this.eventsProducer.produce([{ topic, records }]);
        });
        open = produced;
        chain = produced.catch((e: unknown) => this.log(`events topic: produce failed: ${String(e)}`));
      }
      return awaited ? open : chain;
    };
    const transport: EventTransport = {
      publish: async (events, tx) => {
        await inner.publish(events, tx);
        if (events.length === 0 || this.closed) return;
        const produced = produce(events);
        if (awaited) await produced;
      },
      subscribe: (listener) => inner.subscribe(listener),
    };
    if (inner.replay) transport.replay = (after, limit) => inner.replay!(after, limit);
    this.eventsDrained = () => chain;
    return transport;
  }

  /**
   * Hands jobs that became ready to the relay, without waiting for the produce: with Kafka away the store
   * write still succeeds and the records wait in the relay (the sweep covers a crash meanwhile). `inserted`:
   * the jobs are fresh inserts (not jobs re-entering the queue).
   */
  private async dispatch(jobs: ReadonlyArray<Pick<Job, 'id' | 'queue' | 'state'> | JobSummary>, inserted = false): Promise<void> {
    const entries: InFlightEntry[] = [];
    for (const j of jobs) {
      if (j.state !== READY) continue;
      // A fresh insert's priority lets a claim pass it while it is on its way (InFlight, "ordered").
      entries.push(
        inserted && 'priority' in j && typeof j.priority === 'number' ? { id: j.id, queue: j.queue, priority: j.priority } : { id: j.id, queue: j.queue },
      );
    }
    if (entries.length === 0) return;
    this.inFlight.add(entries);
    void this.relay.push(entries);
  }

  async jobInsert(params: InsertParams): Promise<InsertResult> {
    const result = await this.store.jobInsert(params);
    // Inside a caller's transaction the job may never commit, or commit after the record is consumed: the sweep
    // produces it once it has stayed `available` for sweepAfterMs.
    if (result.ok && params.tx === undefined)
      await this.dispatch(
        result.outcomes.filter((o) => o.status === 'inserted').map((o) => o.job),
        true,
      );
    return result;
  }

  async jobClaim(params: ClaimParams): Promise<ClaimResult> {
    const promoted = await this.store.jobPromote({ now: params.now, nowIso: params.nowIso, limit: 1_000 });
    await this.dispatch(promoted.promoted);
    const claimed = await this.claimAfterLog(params);
    this.inFlight.settle(claimed.jobs.map((j) => j.id));
    const result: ClaimResult = { jobs: claimed.jobs, promoted: promoted.promoted, expired: [...promoted.expired, ...claimed.expired] };
    if (claimed.held) result.held = claimed.held;
    return result;
  }

  /**
   * The claim, behind the jobs this process handed to the log before it. Where every queue with jobs on their
   * way is `ordered` (InFlight), it first claims the dispatched jobs of the queues up to the first such queue
   * (jobs of later queues must not pass the ones on their way), and when that came back short waits only until
   * as many of those jobs as it is short were dispatched, claims again, and so on until it is full, none is on
   * its way any more or `claimWaitMs` passed: a claim right behind a large enqueue then starts at once on what
   * the dispatcher already recorded instead of waiting for all of it (a job that settled may have been cancelled
   * or taken by another claim, hence the loop). Otherwise it waits for every job on its way, as a FETCH after an
   * enqueue expects.
   */
  private async claimAfterLog(params: ClaimParams): Promise<DispatchedClaim> {
    const { queues, limit } = params;
    if (this.claimWaitMs <= 0 || !this.inFlight.has(queues)) return claimDispatched(this.store, params);
    // Passing jobs on their way needs the dispatcher's moves to land in the log's order: they are concurrent calls,
    // which only a store whose calls take effect in the order made (capabilities.orderedCalls: Redis) keeps in
    // order; on PostgreSQL's pool a later job of a batch could be claimable before an earlier one.
    if (this.store.capabilities.orderedCalls !== true || !queues.every((q) => this.inFlight.ordered(q))) {
      await this.inFlight.drain(queues, this.claimWaitMs);
      return claimDispatched(this.store, params);
    }
    const deadline = Date.now() + this.claimWaitMs;
    let waiting = this.inFlight.onTheirWay(queues);
    const first = queues.findIndex((q) => this.inFlight.has([q]));
    const head = await claimDispatched(this.store, { ...params, queues: queues.slice(0, first + 1) });
    const jobs = [...head.jobs];
    const expired = [...head.expired];
    // the rate limits' hint of the latest claim that had one (it knows the most recent spacing)
    let held = head.held;
    while (jobs.length < limit && waiting.length > 0) {
      waiting = await this.inFlight.waitFor(waiting, Math.max(0, deadline - Date.now()), limit - jobs.length, this.claimWaitMs);
      const more = await claimDispatched(this.store, { ...params, limit: limit - jobs.length });
      jobs.push(...more.jobs);
      expired.push(...more.expired);
      if (more.held) held = more.held;
      if (Date.now() >= deadline) break;
    }
    return held ? { jobs, expired, held } : { jobs, expired };
  }

  jobCompleteMany(params: CompleteManyParams): Promise<TransitionResult[]> {
    return this.store.jobCompleteMany(params);
  }

  async jobFailMany(params: FailManyParams): Promise<TransitionResult[]> {
    const results = await this.store.jobFailMany(params);
    await this.dispatch(readied(results));
    return results;
  }

  async jobTransition(op: TransitionOp): Promise<TransitionResult> {
    // ACTIVATE applies to staged jobs only: the store's guarded write refuses a delivered one (the dispatch marker
    // set) in the same atomic step (a dispatch log's store: lib/transition.lua, jobTransitionMany.sql).
    const result = await this.store.jobTransition(op);
    await this.dispatch(readied([result]));
    return result;
  }

  jobGet(id: string): Promise<StoredJob | null> {
    return this.store.jobGet(id);
  }

  /** The store's lines (`capabilities.history` is the store's). */
  jobHistory(params: { id: string }): Promise<JobHistory | null> {
    if (this.store.jobHistory === undefined) return Promise.reject(OjsError.unsupported(`Job history is not recorded by the ${this.store.name} store.`));
    return this.store.jobHistory(params);
  }

  jobList(params: JobListParams): Promise<{ jobs: Job[]; total: number }> {
    return this.store.jobList(params);
  }

  jobDelete(params: Parameters<Driver['jobDelete']>[0]): Promise<Job | null> {
    return this.store.jobDelete(params);
  }

  jobHeartbeat(params: HeartbeatParams): Promise<HeartbeatResult> {
    return this.store.jobHeartbeat(params);
  }

  async jobPromote(params: { now: number; nowIso: string; limit: number }): Promise<{ promoted: JobSummary[]; expired: Job[] }> {
    const result = await this.store.jobPromote(params);
    await this.dispatch(result.promoted);
    return result;
  }

  async jobExpire(params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
    const expired = await this.store.jobExpire(params);
    if (expired.length >= params.limit) return expired;
    return [...expired, ...(await expireDispatched(this.store, { ...params, limit: params.limit - expired.length }))];
  }

  jobListOverdue(params: { now: number; limit: number }): Promise<StoredJob[]> {
    return this.store.jobListOverdue(params);
  }

  jobPrune(params: PruneParams): Promise<number> {
    return this.store.jobPrune(params);
  }

  jobCounts(params: { queue?: string }): ReturnType<Driver['jobCounts']> {
    return this.store.jobCounts(params);
  }

  queueList(): Promise<QueueRecord[]> {
    return this.store.queueList();
  }

  queueGet(name: string): Promise<QueueRecord | null> {
    return this.store.queueGet(name);
  }

  queueSetPaused(params: { name: string; paused: boolean; nowIso: string }): Promise<QueueRecord> {
    return this.store.queueSetPaused(params);
  }

  queueConfigGet(name: string): Promise<QueueConfigRecord | null> {
    return this.store.queueConfigGet(name);
  }

  queueConfigSet(record: QueueConfigRecord): Promise<QueueConfigRecord> {
    return this.store.queueConfigSet(record);
  }

  queueConfigList(): Promise<QueueConfigRecord[]> {
    return this.store.queueConfigList();
  }

  /** The store's (`capabilities.rateLimiting` is the store's: its claim of dispatched jobs applies the limits). */
  rateLimitState(params: { queue: string; now: number }): Promise<RateLimitState> {
    if (this.store.rateLimitState === undefined) {
      return Promise.reject(OjsError.unsupported(`Rate limiting is not supported by the ${this.store.name} store.`));
    }
    return this.store.rateLimitState(params);
  }

  workerRecord(info: Omit<WorkerRecord, 'directive'>): Promise<WorkerRecord> {
    return this.store.workerRecord(info);
  }

  workerSetDirective(params: Parameters<Driver['workerSetDirective']>[0]): Promise<WorkerRecord> {
    return this.store.workerSetDirective(params);
  }

  workerList(): Promise<WorkerRecord[]> {
    return this.store.workerList();
  }

  workerDelete(id: string): Promise<void> {
    return this.store.workerDelete(id);
  }

  cronUpsert(record: CronRecord): Promise<{ created: boolean }> {
    return this.store.cronUpsert(record);
  }

  cronGet(name: string): Promise<CronRecord | null> {
    return this.store.cronGet(name);
  }

  cronList(): Promise<CronRecord[]> {
    return this.store.cronList();
  }

  cronDelete(name: string): Promise<CronRecord | null> {
    return this.store.cronDelete(name);
  }

  cronAdvance(params: Parameters<Driver['cronAdvance']>[0]): Promise<boolean> {
    return this.store.cronAdvance(params);
  }

  workflowGet(id: string): Promise<WorkflowRecord | null> {
    return this.store.workflowGet(id);
  }

  async workflowSave(params: Parameters<Driver['workflowSave']>[0]): Promise<boolean> {
    const saved = await this.store.workflowSave(params);
    // Members whose id existed were skipped by the store; a record for one is a guarded no-op.
    if (saved && params.insert) await this.dispatch(params.insert.map((s) => s.job));
    return saved;
  }

  leaseAcquire(params: Parameters<Driver['leaseAcquire']>[0]): Promise<boolean> {
    return this.store.leaseAcquire(params);
  }

  leaseRelease(params: { name: string; owner: string }): Promise<void> {
    return this.store.leaseRelease(params);
  }

  ping(): Promise<void> {
    return this.store.ping();
  }

  async reset(): Promise<void> {
    // The log keeps records of jobs reset away: each is skipped by the dispatcher's guard (no such job).
    this.inFlight.clear();
    await this.store.reset();
  }

  /** Stops the dispatcher and the relay (after producing what it holds) and closes the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.relay.close();
    await this.eventsDrained();
    this.closed = true;
    this.inFlight.clear();
    await this.dispatcher?.close();
    await this.producer.close();
    if (this.eventsProducer !== this.producer) await this.eventsProducer.close();
    await this.store.close();
  }
}

/** One record per event, key = the job (the subject): the format of `eventRecords: 'event'`. */
function eventPerRecord(events: readonly OjsEvent[]): ProduceRecord[] {
  return events.map((e) => ({ key: e.subject, value: JSON.stringify(e), headers: { 'ojs-type': e.type } }));
}

/**
 * One record per queue of a publish, its value the JSON array of that queue's events in order, key = the queue
 * (an event without a queue, such as a worker's, is keyed by its subject): the default format. kafkajs spends
 * most of its produce path per record (encoding, partitioning, buffers), so a publish of fifty jobs' events costs
 * about what one event does. A job keeps its queue, so its events stay in one partition, in order.
 */
function eventsPerQueue(events: readonly OjsEvent[]): ProduceRecord[] {
  const groups = new Map<string, OjsEvent[]>();
  for (const e of events) {
    const queue = (e.data as { queue?: unknown }).queue;
    const key = typeof queue === 'string' ? queue : e.subject;
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  }
  return [...groups].map(([key, group]) => ({ key, value: JSON.stringify(group), headers: { 'ojs-events': String(group.length) } }));
}

/** The jobs of successful results that moved into the ready state. */
function readied(results: readonly TransitionResult[]): Array<Pick<Job, 'id' | 'queue' | 'state'> | JobSummary> {
  const out: Array<Pick<Job, 'id' | 'queue' | 'state'> | JobSummary> = [];
  for (const r of results) {
    if (!r.ok || r.from === READY) continue;
    out.push('job' in r ? r.job : r.summary);
  }
  return out;
}
