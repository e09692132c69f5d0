/** What a backend hands the contract suite: the API under test, the clock it reads, and its services. */
import type { OjsApi } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import type { ManualClock } from '@ojskit/core/testing';
import type { DispatchLogControl } from './dispatch-log.js';

/**
 * One instance of a backend under test. The suite creates one per case (and one per model-based property),
 * so a subject should live in its own namespace (key prefix, schema, fresh memory store) when the backend
 * allows it; the suite also uses unique queue and cron names, so a shared store works too.
 */
export interface ContractSubject {
  /** The engine (in-process) or the HTTP transport against a gateway built on the same engine. */
  api: OjsApi;
  /** The clock the engine under test reads; the suite advances it instead of sleeping. */
  clock: ManualClock;
  /** Present for in-process backends: concurrency cases then also race the driver primitives directly. */
  driver?: Driver;
  /** Runs every background service once (promote, rescue, expire, cron, prune). */
  maintenance(): Promise<void>;
  /**
   * Required when the backend has a dispatch log (`capabilities.dispatchLog`): how cases settle it and hold
   * a queue's jobs in `available` (`DispatchLogControl`). Absent elsewhere.
   */
  dispatchLog?: DispatchLogControl;
  close(): Promise<void>;
}

/** Options of `runBackendContract`. */
export interface BackendContractOptions {
  /** Shown in the describe block and in the skip report, e.g. `memory` or `redis`. */
  name: string;
  /** Builds a fresh subject. Called once per case. */
  create: () => Promise<ContractSubject>;
  /**
   * Cases this backend does not run, keyed by case id, each with a written reason
   * (e.g. `{ 'concurrency.unique-insert-race': 'best-effort uniqueness: documented in README' }`).
   * An empty reason or an id that names no case fails the suite.
   */
  skip?: Record<string, string>;
  /**
   * Sequences the model-based property runs (default 1000). For a subject whose every operation is a round
   * trip (a networked store, a store behind HTTP), to keep a CI run short while a long run elsewhere uses the
   * full count. `OJSKIT_CONTRACT_MODEL_RUNS` overrides it.
   */
  modelRuns?: number;
  /**
   * Registers only part of the cases, for a long suite split across test files a runner runs in parallel:
   * every `of`-th case in registration order, from the `index`-th (1-based). The files of parts 1 to `of`
   * together run every case once (`[contract.skips]` still checks the skips against every case id).
   */
  part?: { index: number; of: number };
}
