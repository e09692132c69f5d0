/**
 * What the page knows about the server's jobs, fed by its event stream: exact counts, each job's story,
 * a bounded timeline, a replay recorder, and the per-frame token sample. Views read it on animation frames.
 */
import type { OjsEvent } from '@ojskit/core';
import { FrameCoalescer, type Frame } from './coalescer.js';
import { JobStories } from './job-stories.js';
import { Ring } from './ring.js';
import { SeenIds } from './seen-ids.js';
import { StateCounts } from './state-counts.js';
import { sameMove, toTransition, type TransitionEvent } from './transition-event.js';

/** One line of the timeline: a transition, or another event (queue paused, workflow step, dead letter…). */
export interface TimelineEntry {
  readonly id: string;
  readonly type: string;
  readonly at: string;
  readonly jobId: string | undefined;
  readonly transition: TransitionEvent | undefined;
  readonly summary: string;
}

/** Tokens per frame at most: enough to see a burst's shape, few enough to keep 60 fps. */
export const MAX_TOKENS_PER_FRAME = 12;
/** Events held while paused before the oldest held are folded into counts without a timeline line. */
const MAX_HELD = 50_000;

export class LiveModel {
  readonly counts = new StateCounts();
  readonly stories = new JobStories();
  readonly timeline = new Ring<TimelineEntry>(400);
  readonly recorder = new Ring<TransitionEvent & { receivedAt: number }>(3_000);
  private readonly coalescer = new FrameCoalescer(MAX_TOKENS_PER_FRAME);
  private held: { event: OjsEvent; transition: TransitionEvent | undefined }[] = [];
  private replayQueue: { due: number; event: TransitionEvent }[] = [];
  /** Every event received, paused or not. */
  received = 0;
  private lastRate = 0;
  private rateWindowStart = 0;
  private rateWindowCount = 0;
  paused = false;
  /** Bumped when anything a view shows changed. */
  version = 0;
  private readonly lastEventAt = new Map<string, number>();
  private readonly seen = new SeenIds();
  private readonly listeners = new Set<(event: OjsEvent) => void>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Every event, as it arrives (scenarios wait on these). */
  onEvent(listener: (event: OjsEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The newest event id taken in: where a catch-up poll starts after the stream was lost. */
  lastEventId: string | undefined;

  /** Takes one event from the stream or a catch-up poll; an id seen before is dropped. Returns whether it was new. */
  ingest(event: OjsEvent): boolean {
    if (!this.seen.add(event.id)) return false;
    this.lastEventId = event.id;
    this.received += 1;
    let transition = toTransition(event);
    if (transition && sameMove(this.stories.last(transition.jobId), transition)) transition = undefined;
    if (transition) {
      this.lastEventAt.set(transition.queue, this.now());
      this.stories.record(transition);
      this.recorder.push({ ...transition, receivedAt: this.now() });
      this.countRate();
    }
    for (const listener of this.listeners) listener(event);
    if (this.paused) {
      if (this.held.length >= MAX_HELD) {
        const oldest = this.held.shift()!;
        this.apply(oldest.event, false, oldest.transition);
      }
      this.held.push({ event, transition });
      return true;
    }
    this.apply(event, true, transition);
    return true;
  }

  private apply(event: OjsEvent, animate: boolean, transition: TransitionEvent | undefined): void {
    if (transition) {
      this.counts.apply(transition);
      if (animate) this.coalescer.push(transition);
    }
    if (event.type !== 'job.heartbeat') this.timeline.push(toEntry(event, transition));
    this.version += 1;
  }

  private countRate(): void {
    const t = this.now();
    if (t - this.rateWindowStart >= 1_000) {
      this.lastRate = t - this.rateWindowStart >= 2_000 ? 0 : this.rateWindowCount;
      this.rateWindowStart = t;
      this.rateWindowCount = 0;
    }
    this.rateWindowCount += 1;
  }

  /** Transitions per second over the last whole second (0 once the stream has been quiet for a second). */
  get ratePerSecond(): number {
    return this.now() - this.rateWindowStart >= 2_000 ? 0 : this.lastRate;
  }

  /** Freezes the view; events keep being recorded and are applied on resume. */
  pause(): void {
    this.paused = true;
    this.version += 1;
  }

  /** Applies what arrived while paused (without tokens: they would be stale) and goes live again. */
  resume(): void {
    this.paused = false;
    const held = this.held;
    this.held = [];
    for (const { event, transition } of held) this.apply(event, false, transition);
    this.version += 1;
  }

  get heldCount(): number {
    return this.held.length;
  }

  /**
   * Replays the recorded transitions as tokens, at their recorded pace compressed into at most `maxMs`.
   * Counts do not move: they already hold these transitions.
   */
  replay(maxMs = 8_000): number {
    const recorded = this.recorder.toArray();
    if (recorded.length === 0) return 0;
    const first = recorded[0]!.receivedAt;
    const span = Math.max(1, recorded[recorded.length - 1]!.receivedAt - first);
    const scale = Math.min(1, maxMs / span);
    const start = this.now();
    this.replayQueue = recorded.map((event) => ({ due: start + (event.receivedAt - first) * scale, event }));
    return recorded.length;
  }

  get replaying(): boolean {
    return this.replayQueue.length > 0;
  }

  /** This frame's tokens: the live sample, plus replayed transitions that are due. */
  takeFrame(): Frame {
    const t = this.now();
    let due = 0;
    while (due < this.replayQueue.length && this.replayQueue[due]!.due <= t) due += 1;
    if (due > 0) for (const { event } of this.replayQueue.splice(0, due)) this.coalescer.push(event);
    return this.coalescer.takeFrame();
  }

  /**
   * Replaces a queue's counts with the server's snapshot, read starting at `readAt` (this model's clock).
   * A queue that had an event within `quietMs` before the read, or since, keeps its event-driven counts:
   * the snapshot may already include a move whose event is still on its way, which would count it twice.
   */
  seed(queue: string, snapshot: Record<string, number>, readAt = this.now(), quietMs = 3_000): boolean {
    const last = this.lastEventAt.get(queue);
    if (last !== undefined && last >= readAt - quietMs) return false;
    this.counts.seed(queue, snapshot);
    this.version += 1;
    return true;
  }

  /** This model's clock, for `seed`. */
  clock(): number {
    return this.now();
  }

  reset(): void {
    this.counts.clear();
    this.stories.clear();
    this.timeline.clear();
    this.recorder.clear();
    this.held = [];
    this.replayQueue = [];
    this.lastEventAt.clear();
    this.seen.clear();
    this.lastEventId = undefined;
    this.version += 1;
  }
}

function toEntry(event: OjsEvent, transition: TransitionEvent | undefined): TimelineEntry {
  const data = event.data as Record<string, unknown>;
  const jobId = typeof data['job_id'] === 'string' ? (data['job_id'] as string) : undefined;
  let summary: string;
  if (transition) summary = `${transition.jobType} ${transition.from ?? 'new'} → ${transition.to}${transition.queue ? ` · ${transition.queue}` : ''}`;
  else if (typeof data['queue'] === 'string') summary = `${data['queue'] as string}${jobId ? ` · ${jobId.slice(-8)}` : ''}`;
  else if (typeof data['name'] === 'string') summary = data['name'] as string;
  else if (typeof data['workflow_id'] === 'string') summary = data['workflow_id'] as string;
  else summary = event.subject;
  return { id: event.id, type: event.type, at: event.time, jobId, transition, summary };
}
