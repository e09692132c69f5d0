/**
 * How many jobs a worker holds beyond its free slots during a backlog. A configured `prefetch` is used as
 * is. Without one, the default of one fetch batch grows to DEEP_BATCHES batches while handlers finish faster
 * than a fetch's round trip: with one batch held, such a worker drains it and then waits for the next answer,
 * the backend idle meanwhile (no-op jobs on Redis at concurrency 50: ~28k jobs/s with one batch, ~40k with
 * four). Jobs that take longer than a round trip keep one batch, so a worker never sits on jobs its peers
 * could be running. Eight rather than four: with four, the two fetches (DEEP_FETCH_BATCHES each) that arrive
 * together fill the worker, so it asks again only once it has run them, and Redis sits idle while it does
 * (socket timeline of a no-op run: a ~3.3 ms cycle, 0.7 ms of it with nothing queued at Redis). With eight,
 * the next fetches go out as those arrive (2026-11-26, no-op jobs at concurrency 50 against BullMQ in the same
 * runs, 7–9 rounds each: prefetch 400 fetched 100 at a time 3.39–3.64× against 2.57–2.71× for 200; 300: 3.23×,
 * 600: 3.01×).
 */
export const DEEP_BATCHES = 8;

/**
 * Batches per fetch while deep, when no `fetchBatchSize` was configured: a FETCH has a fixed cost on both
 * sides (a script's prelude, a socket write and read, a reply to decode), which larger fetches spread over
 * more jobs (Redis, no-op jobs at concurrency 50, `pnpm bench:prefetch`, 2026-11-25: prefetch 200 fetched 100
 * at a time processed 3.39× BullMQ's jobs/s where 50 at a time made 2.88×). Four since 2026-11-26, once a
 * claim's per-job work had shrunk by a third and a socket write (23–100 µs on the 2-core VM) became a larger
 * share of it: prefetch 400 fetched 200 at a time against 100, no-op jobs at concurrency 50, medians of 7
 * rounds: Redis 74.7k against 64.7k jobs/s (800/200: 72.7k; another run 77.5k against 70.9k), Postgres
 * (SDK worker, 10 000 jobs, 6 alternating pairs) 18.8k against 16.3k. A bigger claim holds the backend longer
 * (a Redis script of 200 claims runs ~2 ms), so the size grows only while handlers are that short.
 */
export const DEEP_FETCH_BATCHES = 4;

/** Weight of the newest sample in the running averages. */
const ALPHA = 0.2;

function average(previous: number, sample: number): number {
  return Number.isNaN(previous) ? sample : previous + ALPHA * (sample - previous);
}

export class PrefetchDepth {
  private handlerMs = Number.NaN;
  private roundTripMs = Number.NaN;

  /**
   * `base`: the configured prefetch, or the default one; `adaptive`: whether none was configured;
   * `adaptiveFetch`: whether no fetch batch size was configured either (the default one is `base`).
   */
  constructor(
    private readonly base: number,
    private readonly adaptive: boolean,
    private readonly adaptiveFetch = false,
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
    return this.deep() ? this.base * DEEP_BATCHES : this.base;
  }

  /** Jobs to ask for per fetch during a backlog: `configured`, or more while deep (see DEEP_FETCH_BATCHES). */
  fetchSize(configured: number): number {
    return this.adaptiveFetch && this.deep() ? this.base * DEEP_FETCH_BATCHES : configured;
  }

  private deep(): boolean {
    return this.adaptive && this.handlerMs < this.roundTripMs;
  }
}
