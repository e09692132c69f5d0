/**
 * Time in state and transitions, from job events: wait (available → active), run time (active → whatever
 * follows), the retry delay scheduled on each failure, and a counter per transition. Events carry the instant
 * the job entered the state it leaves (`enqueued_at` on `job.started`, `started_at` on moves out of `active`),
 * so a job enqueued through one gateway and run through another is measured by every gateway that hears it.
 */
import { SINCE_FIELDS, TRANSITION_EVENT_TYPES, type EventType, type OjsEvent } from '@ojskit/core';
import { STATE_ROLES } from '@ojskit/core/lifecycle';
import { Counter, Histogram, LabelSets } from './exposition.js';

/** Upper bounds (seconds) of the time-in-state histograms: a no-op job's milliseconds to a backoff's hour. */
export const STATE_TIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/**
 * How many running jobs' start times are remembered for events that come without one (a batched ACK answered
 * by a summary on some stores). Past it the oldest are forgotten, so a job never finished cannot pin memory.
 */
export const MAX_REMEMBERED_STARTS = 100_000;

const CLAIMED = STATE_ROLES.claimed;
const WAIT_SINCE = SINCE_FIELDS[STATE_ROLES.claimable]!;
const RUN_SINCE = SINCE_FIELDS[CLAIMED]!;

/** `from` label of a transition out of nothing (PUSH), and of one the store did not report (expiry). */
const FROM_NONE = 'none';
const FROM_UNKNOWN = 'unknown';

function msBetween(from: unknown, to: string): number | undefined {
  if (typeof from !== 'string') return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

export class JobTimingMetrics {
  private readonly wait = new Histogram('ojs_job_wait_seconds', 'Time jobs spent available before a claim (available → active), by queue.', STATE_TIME_BUCKETS);
  private readonly run = new Histogram(
    'ojs_job_run_seconds',
    'Time jobs spent active, by queue and the state that followed (completed, retryable, discarded, available, cancelled).',
    STATE_TIME_BUCKETS,
  );
  private readonly retryDelay = new Histogram('ojs_job_retry_delay_seconds', 'Backoff scheduled when a job enters retryable, by queue.', STATE_TIME_BUCKETS);
  private readonly transitions = new Counter(
    'ojs_job_transitions_total',
    'Job transitions, by queue, previous state ("none" for PUSH, "unknown" for expiry) and new state.',
  );
  private readonly queueLabels = new LabelSets(['queue']);
  private readonly runLabels = new LabelSets(['queue', 'outcome']);
  private readonly transitionLabels = new LabelSets(['queue', 'from', 'to']);
  /** Start times (epoch ms) of running jobs, in claim order, for events that lack them. */
  private readonly starts = new Map<string, number>();

  observe(event: OjsEvent): void {
    const type: EventType = event.type;
    const data = event.data;
    const queue = data['queue'];
    const state = data['state'];
    if (typeof queue !== 'string' || typeof state !== 'string') return;
    if (type === 'job.retrying') {
      const delay = data['retry_delay_ms'];
      if (typeof delay === 'number') this.retryDelay.observe(this.queueLabels.get(queue), delay / 1000);
      return;
    }
    if (!TRANSITION_EVENT_TYPES.has(type)) return;
    const from = typeof data['from'] === 'string' ? data['from'] : type === 'job.expired' ? FROM_UNKNOWN : FROM_NONE;
    this.transitions.inc(this.transitionLabels.get(queue, from, state));
    if (type === 'job.started') {
      const wait = msBetween(data[WAIT_SINCE], event.time);
      if (wait !== undefined) this.wait.observe(this.queueLabels.get(queue), wait / 1000);
      this.remember(data['job_id'], event.time);
    } else if (from === CLAIMED && state !== CLAIMED) {
      const id = data['job_id'];
      const run = msBetween(data[RUN_SINCE], event.time) ?? this.recalled(id, event.time);
      if (typeof id === 'string') this.starts.delete(id);
      if (run !== undefined) this.run.observe(this.runLabels.get(queue, state), run / 1000);
    }
  }

  private remember(id: unknown, time: string): void {
    if (typeof id !== 'string') return;
    this.starts.delete(id);
    this.starts.set(id, Date.parse(time));
    if (this.starts.size > MAX_REMEMBERED_STARTS) this.starts.delete(this.starts.keys().next().value!);
  }

  private recalled(id: unknown, time: string): number | undefined {
    const start = typeof id === 'string' ? this.starts.get(id) : undefined;
    return start === undefined ? undefined : Math.max(0, Date.parse(time) - start);
  }

  render(lines: string[]): void {
    this.transitions.render(lines);
    this.wait.render(lines);
    this.run.render(lines);
    this.retryDelay.render(lines);
  }
}
