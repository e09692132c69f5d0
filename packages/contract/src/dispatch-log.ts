/**
 * The suites' view of a backend with a dispatch log (`capabilities.dispatchLog`, the Kafka adapter): there a
 * job that becomes `available` is moved to `pending` by the log's dispatcher moments later, by design. Cases
 * that read a job they made ready settle the log first and then expect the one state it must be in
 * (`ready`); cases that move a job out of `available` themselves hold its queue so the log leaves it there.
 * On every other backend the view is the identity: `ready` is `available`, settling and holding do nothing.
 */
import { expect } from 'vitest';
import type { JobHistoryEntry, JobState } from '@ojskit/core';
import { DISPATCH_EFFECTS, STATE_ROLES } from '@ojskit/core/lifecycle';

/** How a case steers a subject whose backend has a dispatch log. */
export interface DispatchLogControl {
  /**
   * Resolves once every job made ready so far, outside held queues, was delivered by the log (moved to
   * `pending`, or found moved on); rejects when that takes unreasonably long.
   */
  settle(): Promise<void>;
  /** The log delivers no job of `queue` until `release(queue)`: its ready jobs stay `available`. */
  hold(queue: string): void;
  /** Delivers what `hold` kept back of `queue` (and lets later jobs through), then settles. */
  release(queue: string): Promise<void>;
}

/** The state a ready job is in once settled, and a delivered one: `pending` with a dispatch log. */
const DELIVERED: JobState = DISPATCH_EFFECTS.dispatch.to;
const READY: JobState = STATE_ROLES.promoted;

/** The claim of a ready job (`available → active`), which with a dispatch log takes the delivered job instead. */
const CLAIMED: JobState = DISPATCH_EFFECTS.claim.to;

/** A history line as a case expects it: any subset of the fields, matchers allowed. */
type ExpectedLine = Partial<Record<keyof JobHistoryEntry, unknown>>;

/** Per-state job counts, as `jobCounts` and queue stats return them. */
type Counts = Partial<Record<JobState, number>>;

/** One case's view of its subject's dispatch log (or of its absence). */
export class DispatchView {
  /** Where a job made ready is found after `settle()`: `available`, or `pending` with a dispatch log. */
  readonly ready: JobState;

  constructor(
    private readonly control: DispatchLogControl | undefined,
    capability: boolean | undefined,
    subjectName: string,
  ) {
    // A backend that says it has a dispatch log but whose subject cannot settle it would make every read of a
    // ready job a race: refuse it rather than let cases guess.
    if (capability === true && control === undefined) {
      throw new Error(`[ojs contract:${subjectName}] the driver declares capabilities.dispatchLog: its subject must offer dispatchLog (settle, hold, release)`);
    }
    this.ready = control === undefined ? READY : DELIVERED;
  }

  private readonly held = new Set<string>();

  /** Where a ready job of `queue` is once settled: `available` in a held queue, else `ready`. */
  readyIn(queue: string): JobState {
    return this.held.has(queue) ? READY : this.ready;
  }

  /** True when the subject has a dispatch log. */
  get active(): boolean {
    return this.control !== undefined;
  }

  settle(): Promise<void> {
    return this.control?.settle() ?? Promise.resolve();
  }

  hold(queue: string): void {
    if (this.control === undefined) return;
    this.held.add(queue);
    this.control.hold(queue);
  }

  release(queue: string): Promise<void> {
    if (this.control === undefined) return Promise.resolve();
    this.held.delete(queue);
    return this.control.release(queue);
  }

  /**
   * Expected per-state counts of a queue as a settled subject shows them: with a dispatch log the `available`
   * ones are counted as `pending` (a staged `pending` job stays `pending` as well: name it in `expected`)
   * unless the queue is held; elsewhere unchanged.
   * @example view.counts({ available: 1, pending: 1 }) // { available: 0, pending: 2 } with a dispatch log
   */
  counts<C extends Counts>(expected: C, queue?: string): C {
    const ready = expected[READY];
    if (this.control === undefined || (queue !== undefined && this.held.has(queue)) || ready === undefined) return expected;
    return { ...expected, [READY]: 0, [DELIVERED]: (expected[DELIVERED] ?? 0) + ready };
  }

  /**
   * Job event types in the order a settled subject emits them: with a dispatch log (the queue not held) each
   * `job.started` follows the `job.pending` of the log's delivery (spec/events.md V4); elsewhere unchanged.
   * @example view.eventTypes(['job.enqueued', 'job.started']) // ['job.enqueued', 'job.pending', 'job.started'] with a dispatch log
   */
  eventTypes(types: readonly string[], queue?: string): string[] {
    if (this.control === undefined || (queue !== undefined && this.held.has(queue))) return [...types];
    return types.flatMap((type) => (type === 'job.started' ? ['job.pending', type] : [type]));
  }

  /**
   * A job's history moves (`[from, to]`) as a settled subject records them: with a dispatch log (the queue not
   * held) every move into `available` is followed by the log's delivery (`available → pending`), and a claim
   * takes the delivered job (`pending → active`); elsewhere unchanged.
   * @example view.historyMoves([[null, 'available'], ['available', 'active']]) // [[null, 'available'], ['available', 'pending'], ['pending', 'active']] with a dispatch log
   */
  historyMoves(moves: ReadonlyArray<readonly [JobState | null, JobState]>, queue?: string): Array<[JobState | null, JobState]> {
    return this.historyLines(
      moves.map(([from, to]) => ({ from, to })),
      queue,
    ).map((line) => [line['from'] as JobState | null, line['to'] as JobState]);
  }

  /**
   * A job's history lines as a settled subject records them (see `historyMoves`): with a dispatch log each line
   * into `available` is followed by the delivery's line (trigger `dispatch`, at the dispatcher's own instant, the
   * attempt unchanged) and a claim's line says `from: pending`; elsewhere unchanged.
   */
  historyLines<L extends ExpectedLine>(lines: readonly L[], queue?: string): ExpectedLine[] {
    if (this.control === undefined || (queue !== undefined && this.held.has(queue))) return [...lines];
    return lines.flatMap((line): ExpectedLine[] => {
      if (line.to === READY) {
        const delivery: ExpectedLine = { at: expect.any(String), from: READY, to: DELIVERED, trigger: DISPATCH_EFFECTS.dispatch.trigger };
        if (line.attempt !== undefined) delivery.attempt = line.attempt;
        return [line, delivery];
      }
      return line.from === READY && line.to === CLAIMED ? [{ ...line, from: DELIVERED }] : [line];
    });
  }

  /** `lines` without the log's deliveries: the lines of the job's own moves (all of them without a dispatch log). */
  ownLines<L extends { trigger: string }>(lines: readonly L[]): L[] {
    return this.control === undefined ? [...lines] : lines.filter((line) => line.trigger !== DISPATCH_EFFECTS.dispatch.trigger);
  }

  /** Fails unless `state` is where a settled ready job of `queue` is. */
  expectReady(state: JobState | undefined, queue: string, what: string): void {
    expect(state, what).toBe(this.readyIn(queue));
  }
}
