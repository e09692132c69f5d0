/**
 * Each job's transition history as seen on the event stream, kept after the job is terminal. Bounded: the
 * least recently touched jobs are forgotten first, so memory stays flat during a burst.
 */
import type { TransitionEvent } from './transition-event.js';

export class JobStories {
  private readonly stories = new Map<string, TransitionEvent[]>();

  constructor(
    private readonly maxJobs = 5_000,
    private readonly maxPerJob = 100,
  ) {}

  record(event: TransitionEvent): void {
    let story = this.stories.get(event.jobId);
    if (story) this.stories.delete(event.jobId);
    else story = [];
    // The newest moves are kept: the last one is what the next event is compared with.
    if (story.length >= this.maxPerJob) story.shift();
    story.push(event);
    this.stories.set(event.jobId, story);
    if (this.stories.size > this.maxJobs) {
      const oldest = this.stories.keys().next().value;
      if (oldest !== undefined) this.stories.delete(oldest);
    }
  }

  get(jobId: string): readonly TransitionEvent[] {
    return this.stories.get(jobId) ?? [];
  }

  /** The job's latest recorded move. */
  last(jobId: string): TransitionEvent | undefined {
    const story = this.stories.get(jobId);
    return story?.[story.length - 1];
  }

  get size(): number {
    return this.stories.size;
  }

  clear(): void {
    this.stories.clear();
  }
}
