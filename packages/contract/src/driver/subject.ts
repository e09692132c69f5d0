/** What a driver hands the driver-level suite: a fresh driver on a namespace of its own, and more on the same one. */
import type { Driver } from '@ojskit/core/driver';
import type { DispatchLogControl } from '../dispatch-log.js';

/**
 * One driver under test. The suite creates one per case, and cases call store-wide primitives (`jobPromote`,
 * `jobPrune`, `jobCounts({})`, `reset`, …), so each subject must live in a namespace of its own (a fresh
 * memory store, a Redis key prefix, a PostgreSQL schema).
 */
export interface DriverSubject {
  driver: Driver;
  /**
   * Opens another driver on the same namespace over connections of its own: another process, as far as the
   * store can tell. The race cases spread their callers over `driver` and peers; without `peer` they race on
   * `driver` alone (enough for a store inside the process). `close` closes every peer it opened.
   */
  peer?: () => Promise<Driver>;
  /**
   * Required when the driver has a dispatch log (`capabilities.dispatchLog`): how cases settle it and hold a
   * queue's jobs in `available` (`DispatchLogControl`). Absent elsewhere.
   */
  dispatchLog?: DispatchLogControl;
  /** Closes the driver and its peers and removes the namespace. */
  close(): Promise<void>;
}

/** Options of `runDriverContract`. */
export interface DriverContractOptions {
  /** Shown in the describe block and in the skip report, e.g. `memory` or `redis`. */
  name: string;
  /** Builds a fresh subject. Called once per case. */
  create: () => Promise<DriverSubject>;
  /** Cases this driver does not run, keyed by case id, each with a written reason. */
  skip?: Record<string, string>;
}
