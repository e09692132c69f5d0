/** The dispatch log's records and topic names: one record names one job to run next; the job stays in the store. */
import type { ConsumedRecord, ProduceRecord } from '../port/types.js';

/** A job handed to the dispatch log. */
export interface DispatchEntry {
  id: string;
  queue: string;
}

/** The dispatch topic: one for every queue of the prefix (see the README, "one topic, keyed by queue"). */
export function dispatchTopic(prefix: string): string {
  return `${prefix}.dispatch`;
}

/** The events topic every transition's event is produced to. */
export function eventsTopic(prefix: string): string {
  return `${prefix}.events`;
}

/**
 * The record of one entry. Keyed by queue, so a queue's jobs stay in one partition in the order they were
 * produced (FIFO per queue), and a queue's header lets consumers outside ojskit filter without parsing.
 */
export function encodeEntry(entry: DispatchEntry): ProduceRecord {
  return { key: entry.queue, value: JSON.stringify({ id: entry.id, queue: entry.queue }), headers: { 'ojs-queue': entry.queue } };
}

/** The entry a consumed record names, or null for a record that is not one (written by someone else). */
export function decodeEntry(record: ConsumedRecord): DispatchEntry | null {
  if (record.value === null) return null;
  try {
    const parsed = JSON.parse(record.value.toString()) as Partial<DispatchEntry>;
    if (typeof parsed.id !== 'string' || typeof parsed.queue !== 'string') return null;
    return { id: parsed.id, queue: parsed.queue };
  } catch {
    return null;
  }
}
