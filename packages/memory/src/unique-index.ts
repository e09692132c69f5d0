/** Unique keys → the stored jobs carrying them, so a unique check never scans the job table. */
import type { JobEntry } from './job-entry.js';

/**
 * Several jobs may share a key (a finished one and its successor, or jobs whose `uniqueStates` differ),
 * so each key maps to a set. Entries leave when their job is deleted or pruned, or its key changes.
 */
export class UniqueIndex {
  private readonly byKey = new Map<string, Set<JobEntry>>();

  add(entry: JobEntry): void {
    const key = entry.x.uniqueKey;
    if (key === undefined) return;
    let set = this.byKey.get(key);
    if (set === undefined) this.byKey.set(key, (set = new Set()));
    set.add(entry);
  }

  /** Forgets `entry` under `key` (its key before a change, by default its current one). */
  remove(entry: JobEntry, key: string | undefined = entry.x.uniqueKey): void {
    if (key === undefined) return;
    const set = this.byKey.get(key);
    if (set === undefined) return;
    set.delete(entry);
    if (set.size === 0) this.byKey.delete(key);
  }

  /** The stored jobs with this key. */
  get(key: string): ReadonlySet<JobEntry> | undefined {
    return this.byKey.get(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}
