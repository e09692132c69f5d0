/**
 * Keeps one job's events in lifecycle order when they come from different processes.
 *
 * Transports deliver a process's own events at once and publish them to other processes a little later (a
 * NOTIFY or PUBLISH shared by the events of a couple of milliseconds). A job enqueued through gateway A and
 * claimed through gateway B therefore reaches B's subscribers as `job.started` (B's own, at once) before
 * `job.enqueued` (A's, a few milliseconds later). Every job event carries `from`, the state before its
 * transition, so a process can tell that it has not heard a job's previous event yet: such an event waits, up
 * to a window, for the one it follows.
 *
 * A process alone on its store hears its own jobs' events in order and holds nothing, except the first event
 * of a job it has not heard of since it started or forgot (a backlog left by an earlier run, one more than
 * 32–64k jobs deep, or one that changed while its transport was quiet and the hub kept events past the order),
 * which waits the window. The price is a Map lookup and a Map set an event, and only the
 * set for a job's first event (0.2–0.3 µs an event on the 2-core benchmark machine).
 */
import { settingMs } from '../formats/durations.js';
import { JOB_STATES } from '../lifecycle/states.js';
import type { OjsEvent } from './event.js';

/** How long an event may wait for the event it follows, by default (a 2 ms publish delay plus a loaded loop). */
export const DEFAULT_EVENT_ORDER_WINDOW_MS = 50;

/**
 * Jobs whose last state is remembered, per generation: when the newer generation fills up, the older one is
 * dropped (a forgotten job's next event may wait a window). Two maps instead of one evicting its oldest entry
 * per insert: a Map skips its deleted slots on every `keys().next()`, which made that cost 2 µs an event.
 */
const GENERATION_SIZE = 32_768;

/** A state's number; `from: null` (a job's first event) is one more than the last state's. */
const FIRST = JOB_STATES.length;
const STATE_CODE: Record<string, number> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(JOB_STATES.map((state, i) => [state, i])),
);
const CODE_BITS = 4;

/** The last transition heard of a job, as one small integer (no allocation per event): from, then state. */
function lastCode(from: number, state: number): number {
  return (from << CODE_BITS) | state;
}

/**
 * True when an event continues what was last heard of its job (`last`, or undefined when unknown): the next
 * transition, a second event of the same transition (job.failed + job.retrying), an event within a state
 * (job.heartbeat, job.progress: from active to active), or a job's first event (`from: null`; a replacement's too).
 */
function follows(last: number | undefined, from: number, state: number): boolean {
  if (from === FIRST) return true;
  if (last === undefined) return false;
  const lastState = last & ((1 << CODE_BITS) - 1);
  return from === lastState || last === lastCode(from, state);
}

/** The job a job event is about, or undefined for events that are not about one job's transitions. */
function jobOf(event: OjsEvent): string | undefined {
  const data = event.data as { job_id?: unknown; from?: unknown; state?: unknown };
  return typeof data.job_id === 'string' && data.from !== undefined && typeof data.state === 'string' && STATE_CODE[data.state] !== undefined
    ? data.job_id
    : undefined;
}
/** The code of a job event's `from` (of an event `jobOf` accepted). */
function fromOf(event: OjsEvent): number {
  const from = event.data.from;
  return typeof from === 'string' ? (STATE_CODE[from] ?? FIRST) : FIRST;
}
/** The code of a job event's `state` (of an event `jobOf` accepted). */
function stateOf(event: OjsEvent): number {
  return STATE_CODE[event.data.state as string]!;
}

/**
 * Passes events on in an order where each job's events follow each other: an event whose `from` is not the
 * job's last heard state waits until its predecessor arrives or `windowMs` passes, whichever comes first.
 * Nothing is dropped: on timeout (or `close`) waiting events go on in arrival order.
 */
export class JobEventOrder {
  private recent = new Map<string, number>();
  private older = new Map<string, number>();
  /** Waiting events by job, in arrival order. */
  private readonly held = new Map<string, OjsEvent[]>();
  /** When each job started waiting, oldest first (one window for all, so arrival order is deadline order). */
  private readonly since: Array<{ jobId: string; list: OjsEvent[]; at: number }> = [];
  private sinceHead = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly deliver: (event: OjsEvent) => void,
    private readonly windowMs = DEFAULT_EVENT_ORDER_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    settingMs('eventOrderWindowMs', windowMs);
  }

  /** Passes on events that arrived together. */
  push(events: readonly OjsEvent[]): void {
    for (const event of events) this.accept(event);
  }

  /** Passes on everything still waiting, in arrival order. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const jobId of [...this.held.keys()]) this.release(jobId);
    this.since.length = this.sinceHead = 0;
  }

  /** Events waiting for their predecessor (for tests and diagnostics). */
  get waiting(): number {
    let n = 0;
    for (const list of this.held.values()) n += list.length;
    return n;
  }

  private accept(event: OjsEvent): void {
    const jobId = jobOf(event);
    if (jobId === undefined) return this.deliver(event);
    const from = fromOf(event);
    const state = stateOf(event);
    const waiting = this.held.size === 0 ? undefined : this.held.get(jobId);
    // A job's first event follows nothing: no lookup (a miss in both generations is the dearest one).
    const last = from === FIRST ? undefined : this.lastOf(jobId);
    // An unknown job's `job.enqueued` goes on at once: workers wake on it, and what it follows (a schedule, a
    // retry wait, a dead-letter entry) was announced long before that wait ended; a held `job.started` follows it.
    if (follows(last, from, state) || (last === undefined && event.type === 'job.enqueued')) {
      this.pass(jobId, last, from, state, event);
      if (waiting !== undefined) this.drain(jobId, waiting);
      return;
    }
    if (waiting !== undefined) {
      waiting.push(event);
      return;
    }
    const list = [event];
    this.held.set(jobId, list);
    this.since.push({ jobId, list, at: this.now() });
    if (this.timer === undefined) this.arm(this.windowMs);
  }

  private lastOf(jobId: string): number | undefined {
    return this.recent.get(jobId) ?? this.older.get(jobId);
  }

  private pass(jobId: string, last: number | undefined, from: number, state: number, event: OjsEvent): void {
    const code = lastCode(from, state);
    // A second event of the transition heard last changes nothing.
    if (last !== code) {
      if (this.recent.size >= GENERATION_SIZE) {
        this.older = this.recent;
        this.recent = new Map();
      }
      this.recent.set(jobId, code);
    }
    this.deliver(event);
  }

  /** Passes on waiting events that now follow, until none does. */
  private drain(jobId: string, waiting: OjsEvent[]): void {
    for (let i = 0; i < waiting.length;) {
      const event = waiting[i]!;
      const last = this.lastOf(jobId);
      const from = fromOf(event);
      const state = stateOf(event);
      if (!follows(last, from, state)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      this.pass(jobId, last, from, state, event);
      i = 0; // an earlier one may follow now
    }
    if (waiting.length === 0) this.held.delete(jobId);
  }

  /** Passes on a job's waiting events in arrival order, whatever they follow. */
  private release(jobId: string): void {
    const waiting = this.held.get(jobId);
    if (waiting === undefined) return;
    this.held.delete(jobId);
    for (const event of waiting) this.pass(jobId, this.lastOf(jobId), fromOf(event), stateOf(event), event);
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.expire(), delayMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.now();
    const since = this.since;
    while (this.sinceHead < since.length && since[this.sinceHead]!.at + this.windowMs <= now) {
      const { jobId, list } = since[this.sinceHead++]!;
      // Only the wait this entry began: one that ended (its predecessor came) and began again has a later entry.
      if (this.held.get(jobId) === list) this.release(jobId);
    }
    if (this.sinceHead === since.length || (this.sinceHead > 1024 && this.sinceHead * 2 > since.length)) {
      since.splice(0, this.sinceHead); // entries consumed, dropped now and then rather than shifted one by one
      this.sinceHead = 0;
    }
    if (this.sinceHead < since.length) this.arm(Math.max(1, since[this.sinceHead]!.at + this.windowMs - now));
  }
}
