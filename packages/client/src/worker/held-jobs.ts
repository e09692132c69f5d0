/**
 * Jobs a worker claimed ahead of a free slot, started oldest first. Taking the oldest is an index step: a Map
 * walked from its start on every freed slot would first skip every entry deleted since its last rehash.
 */
import type { Job as WireJob } from '@ojskit/core';

/** Dead entries tolerated at the front of the queue before it is compacted. */
const COMPACT_AT = 1_024;

export class HeldJobs {
  private readonly byId = new Map<string, WireJob>();
  /** Arrival order; an entry whose job left (started, dropped, replaced) stays until it is passed over. */
  private queue: WireJob[] = [];
  private head = 0;

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): WireJob | undefined {
    return this.byId.get(id);
  }

  /** Holds a job, last in line (a newer attempt of a held job replaces it there). */
  add(job: WireJob): void {
    this.byId.set(job.id, job);
    this.queue.push(job);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  /** Takes the oldest held job out, if any. */
  shift(): WireJob | undefined {
    while (this.head < this.queue.length) {
      const job = this.queue[this.head++]!;
      if (this.byId.get(job.id) === job) {
        this.byId.delete(job.id);
        this.compact();
        return job;
      }
    }
    this.queue = [];
    this.head = 0;
    return undefined;
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  /** Empties the hold, returning its jobs oldest first. */
  clear(): WireJob[] {
    const jobs: WireJob[] = [];
    for (let job = this.shift(); job; job = this.shift()) jobs.push(job);
    return jobs;
  }

  private compact(): void {
    if (this.head >= COMPACT_AT && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
