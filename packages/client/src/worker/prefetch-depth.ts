/**
 * How many jobs a worker holds beyond its free slots during a backlog. A configured `prefetch` is used as
 * is. Without one, the default of one fetch batch grows to DEEP_BATCHES batches while handlers finish faster
 * than a fetch's round trip: with one batch held, such a worker drains it and then waits for the next answer,
 * the backend idle meanwhile (no-op jobs on Redis at concurrency 50: ~28k jobs/s with one batch, ~40k with
 * four). Jobs that take longer than a round trip keep one batch, so a worker never sits on jobs its peers
 * could be running.
 */
export const DEEP_BATCHES = 4;

/** Weight of the newest sample in the running averages. */
const ALPHA = 0.2;

function average(previous: number, sample: number): number {
  return Number.isNaN(previous) ? sample : previous + ALPHA * (sample - previous);
}

export class PrefetchDepth {
  private handlerMs = Number.NaN;
  private roundTripMs = Number.NaN;

  /** `base`: the configured prefetch, or the default one; `adaptive`: whether none was configured. */
  constructor(
    private readonly base: number,
    private readonly adaptive: boolean,
  ) {}

  /** A handler ran this long. */
  handled(ms: number): void {
    if (this.adaptive) this.handlerMs = average(this.handlerMs, ms);
  }

  /** A fetch the server did not hold (`wait_ms` 0) was answered after this long. */
  fetched(ms: number): void {
    if (this.adaptive) this.roundTripMs = average(this.roundTripMs, ms);
  }

  /** Jobs to hold beyond the free slots now. */
  get value(): number {
    return this.adaptive && this.handlerMs < this.roundTripMs ? this.base * DEEP_BATCHES : this.base;
  }
}
