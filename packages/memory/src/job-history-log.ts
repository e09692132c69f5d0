/** A memory job's history lines (history/job-history.ts in core), kept on its entry and bounded. */
import { type JobHistory, type JobHistoryEntry } from '@ojskit/core';
import { MAX_HISTORY_ENTRIES } from '@ojskit/core/driver';

/** The lines of one job, oldest first; past the bound the oldest go and are counted. */
export class JobHistoryLog {
  private readonly entries: JobHistoryEntry[] = [];
  private dropped = 0;

  append(entry: JobHistoryEntry): void {
    if (this.entries.length === MAX_HISTORY_ENTRIES) {
      this.entries.shift();
      this.dropped++;
    }
    this.entries.push(entry);
  }

  /** A copy: callers never hold the stored lines. */
  read(): JobHistory {
    return { entries: this.entries.map((e) => ({ ...e })), dropped: this.dropped };
  }
}
