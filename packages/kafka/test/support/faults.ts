/**
 * Test support for the driver's fault tests: a handler side-effect ledger, the end-of-run checks every fault
 * test makes (every job terminal and completed, each attempt run at most once, the dispatch group's lag 0), and
 * helpers to wait on conditions rather than on time.
 */
import { Kafka, logLevel } from 'kafkajs';
import { Client, Worker, inProcess, type EnqueueOptions } from '@ojskit/client';
import { FAULT_QUEUE, FAULT_TYPE } from './store-of.js';
import type { Engine, EngineOptions } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { expect } from 'vitest';
import type { KafkaDriver, KafkaDriverOptions } from '../../src/index.js';
import type { TestBroker } from './broker.js';
import { storeOf, type StoreKind } from './store-of.js';
import { disposeKafka, dropSchema, kafkaDriver, uniqueNamespace } from './stores.js';

export { FAULT_QUEUE, FAULT_TYPE, storeOf, type StoreKind } from './store-of.js';

/** One finished handler run: the side effect a handler leaves, written when its work is done. */
export interface LedgerEntry {
  id: string;
  attempt: number;
}

/** The side effects handlers left, in order. */
export class Ledger {
  readonly entries: LedgerEntry[] = [];

  record(id: string, attempt: number): void {
    this.entries.push({ id, attempt });
  }

  /** Finished runs per job. */
  runs(id: string): number {
    let n = 0;
    for (const e of this.entries) if (e.id === id) n += 1;
    return n;
  }
}

/** Polls `check` until it resolves true; throws after `timeoutMs` with `what` and the last detail. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000, everyMs = 200): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    let failure: unknown;
    try {
      ok = await check();
    } catch (error) {
      failure = error;
    }
    if (ok) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${failure ? `: ${String(failure)}` : ''}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until every job of `ids` is terminal; on timeout the error counts the jobs per state. */
export async function waitAllTerminal(store: Driver, ids: readonly string[], timeoutMs = 120_000): Promise<void> {
  try {
    await waitUntil('every job terminal', () => allTerminal(store, ids), timeoutMs);
  } catch (error) {
    const states = new Map<string, number>();
    for (const s of await Promise.all(ids.map((id) => store.jobGet(id)))) {
      const key = s ? `${s.job.state}${s.x.dispatchedAt === undefined ? '' : ' (dispatched)'} attempt ${s.job.attempt}` : 'missing';
      states.set(key, (states.get(key) ?? 0) + 1);
    }
    throw new Error(`${String(error)}; jobs by state: ${JSON.stringify(Object.fromEntries(states))}`, { cause: error });
  }
}

/** Whether every job of `ids` is in a terminal state in the store. */
export async function allTerminal(store: Driver, ids: readonly string[]): Promise<boolean> {
  const jobs = await Promise.all(ids.map((id) => store.jobGet(id)));
  return jobs.every((s) => s !== null && ['completed', 'discarded', 'cancelled'].includes(s.job.state));
}

/**
 * Per partition of the dispatch topic: the group's committed position and the log's end. Lag 0 everywhere
 * means no record is left unconsumed: a job whose record was committed away was recorded in the store first.
 */
export async function dispatchLag(broker: TestBroker, prefix: string): Promise<Array<{ partition: number; committed: number; end: number }>> {
  const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING, clientId: 'ojskit-fault-check' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topic = `${prefix}.dispatch`;
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId: `${prefix}.dispatchers`, topics: [topic] });
    return ends.map((e) => {
      const c = committed?.partitions.find((p) => p.partition === e.partition);
      // -1: nothing committed, which is lag 0 only for an empty partition.
      const position = c && Number(c.offset) >= 0 ? Number(c.offset) : 0;
      return { partition: e.partition, committed: position, end: Number(e.high) };
    });
  } finally {
    await admin.disconnect();
  }
}

/** Waits until the dispatch group has committed every record of the dispatch topic. */
export async function waitForZeroLag(broker: TestBroker, prefix: string, timeoutMs = 60_000): Promise<void> {
  let last: unknown;
  await waitUntil(
    'the dispatch group to commit every record',
    async () => {
      const lag = await dispatchLag(broker, prefix);
      last = lag;
      return lag.every((p) => p.committed >= p.end);
    },
    timeoutMs,
    250,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`, { cause: error });
  });
}

/**
 * The end-of-run checks. Every job completed; no attempt ran twice (the ledger holds each job-attempt pair at
 * most once); a job ran more than once only when an attempt was lost (its final attempt is above 1); and with
 * `exactlyOnce`, every job ran exactly once.
 */
export async function expectAllCompletedOnce(
  store: Driver,
  ids: readonly string[],
  ledger: Ledger,
  options: { exactlyOnce: boolean },
): Promise<{ reruns: number }> {
  expect(new Set(ids).size).toBe(ids.length);
  const stored = await Promise.all(ids.map((id) => store.jobGet(id)));
  const notCompleted = stored.filter((s) => s?.job.state !== 'completed').map((s, i) => `${ids[i]}: ${s?.job.state ?? 'missing'}`);
  expect(notCompleted).toEqual([]);
  const pairs = ledger.entries.map((e) => `${e.id}#${e.attempt}`);
  expect(pairs.length - new Set(pairs).size, 'attempts run twice').toBe(0);
  const known = new Set(ids);
  expect(
    ledger.entries.filter((e) => !known.has(e.id)),
    'runs of jobs never enqueued',
  ).toEqual([]);
  let reruns = 0;
  for (const s of stored) {
    const runs = ledger.runs(s!.job.id);
    expect(runs, `runs of ${s!.job.id}`).toBeGreaterThanOrEqual(1);
    if (options.exactlyOnce) expect(runs, `runs of ${s!.job.id}`).toBe(1);
    else expect(runs, `runs of ${s!.job.id} (attempt ${s!.job.attempt})`).toBeLessThanOrEqual(s!.job.attempt);
    reruns += runs - 1;
  }
  return { reruns };
}

/** One process's side of a fault test: a Kafka driver on a store, its engine, a client and a ledger-keeping worker. */
export interface Rig {
  namespace: string;
  store: Driver;
  driver: KafkaDriver;
  engine: Engine;
  client: Client;
  ledger: Ledger;
  /**
   * Starts a worker on `queue` whose handler leaves its side effect in the ledger (after `workMs`);
   * `visibilityTimeoutMs` is the reservation its fetches ask for (the worker's default is 30 s).
   */
  startWorker(options?: { concurrency?: number; workMs?: number; visibilityTimeoutMs?: number }): Worker;
  /** Closes workers, the engine and the driver; drops the store's data. */
  dispose(): Promise<void>;
}

export interface RigOptions {
  kind: StoreKind;
  broker: TestBroker;
  namespace?: string;
  /** Store address instead of the shared service's. */
  storeUrl?: string;
  driver?: Partial<KafkaDriverOptions>;
  engine?: Omit<EngineOptions, 'driver'>;
}

export async function startRig(options: RigOptions): Promise<Rig> {
  const namespace = options.namespace ?? uniqueNamespace();
  const store = await storeOf(options.kind, namespace, options.storeUrl);
  const driver = await kafkaDriver(options.broker, store, namespace, options.driver ?? {});
  const engine = inProcess(driver, options.engine ?? {});
  const client = new Client(engine);
  const ledger = new Ledger();
  const workers: Worker[] = [];
  return {
    namespace,
    store,
    driver,
    engine,
    client,
    ledger,
    startWorker({ concurrency = 10, workMs = 0, visibilityTimeoutMs } = {}) {
      const worker = new Worker(engine, { queues: [FAULT_QUEUE], concurrency, ...(visibilityTimeoutMs === undefined ? {} : { visibilityTimeoutMs }) });
      worker.register(FAULT_TYPE, async ({ job }) => {
        if (workMs > 0) await sleep(workMs);
        ledger.record(job.id, job.attempt);
        return null;
      });
      // Refused ACKs and failed fetches during a fault are expected; the end-of-run checks judge the outcome.
      worker.on('error', () => {});
      worker.start();
      workers.push(worker);
      return worker;
    },
    async dispose() {
      for (const w of workers) await w.close().catch(() => {});
      await disposeKafka(driver).catch(() => {});
      await engine.close().catch(() => {});
      if (options.kind === 'postgres') await dropSchema(namespace).catch(() => {});
    },
  };
}

/** Enqueues `count` fault jobs one by one; their ids. */
export async function enqueueJobs(client: Client, count: number, options: EnqueueOptions = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await client.enqueue(FAULT_TYPE, [i], { queue: FAULT_QUEUE, ...options })).id);
  return ids;
}
