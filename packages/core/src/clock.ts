/** Clocks: the engine and its services read time only through one of these, so tests can drive it. */

/** A source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that moves only when told to: tests advance it instead of sleeping.
 * @example const clock = new ManualClock(); clock.advance(1_000);
 */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number = Date.UTC(2026, 0, 1, 0, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): number {
    this.current += ms;
    return this.current;
  }

  /** Jumps to an absolute time (never backwards). */
  set(ms: number): void {
    this.current = Math.max(this.current, ms);
  }
}
