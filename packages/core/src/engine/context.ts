/** What every engine operation needs: the driver, time, settings and the event hub. */
import type { Clock } from '../clock.js';
import type { Driver } from '../driver/driver.js';
import type { EventHub } from '../events/hub.js';
import { toTimestamp } from '../formats/timestamps.js';
import type { Retention, ServiceIntervals } from './options.js';
import type { WorkSignal } from './work-signal.js';
import type { WorkerDirectives } from './worker-directives.js';
import type { QueueConfigCache } from './queue-configs.js';
import type { Job } from '../schemas/job.js';

/** Resolved engine settings. */
export interface EngineSettings {
  visibilityTimeoutMs: number;
  executionTimeoutMs: number;
  workerDeathMs: number;
  maxFetchCount: number;
  maxBatchSize: number;
  services: ServiceIntervals;
  retention: Retention;
  instanceId: string;
  implementation: { name: string; version: string; homepage?: string };
}

/** Called when a job reaches a terminal state, so workflows can advance. */
export type TerminalHook = (job: Job) => Promise<void>;

export interface EngineContext {
  readonly driver: Driver;
  readonly clock: Clock;
  readonly random: () => number;
  readonly settings: EngineSettings;
  readonly hub: EventHub;
  /** Wakes FETCHes waiting in this process as soon as an insert is issued to an ordered driver. */
  readonly work: WorkSignal;
  readonly startedAt: number;
  /** Queue configurations (backpressure bounds) as enqueues read them. */
  readonly queueConfigs: QueueConfigCache;
  /** Workers told to stop fetching, as this engine has seen (FETCH answers them with no jobs). */
  readonly workerDirectives: WorkerDirectives;
  /** Set by the workflow module; the job operations call it after terminal transitions of workflow members. */
  onTerminal: TerminalHook;
}

/** The current instant in both forms drivers take. */
export function instant(ctx: EngineContext): { now: number; nowIso: string } {
  const now = ctx.clock.now();
  return { now, nowIso: toTimestamp(now) };
}
