/** A background service: one idempotent pass of work, safe to run on any engine sharing the store. */
import type { EngineContext } from '../context.js';

export interface BackgroundService {
  /** Lease and log name. */
  readonly name: string;
  /** How often it runs (ms). */
  intervalMs(ctx: EngineContext): number;
  /** One pass; returns how many items it handled. */
  run(ctx: EngineContext): Promise<number>;
}
