/** The event hub: fans events out to subscribers and keeps a bounded window of recent events for polling and resume. */
import type { EventTransport } from '../driver/driver.js';
import type { EventFilter } from '../api/ojs-api.js';
import type { OjsEvent } from './event.js';

type Listener = (event: OjsEvent) => void;

/** True when an event passes a filter (filters are AND-ed; a type ending in `*` matches by prefix). */
export function matchesFilter(event: OjsEvent, filter: EventFilter): boolean {
  if (filter.types?.length && !filter.types.some((t) => (t.endsWith('*') ? event.type.startsWith(t.slice(0, -1)) : event.type === t))) return false;
  const data = event.data as Record<string, unknown>;
  if (filter.queues?.length && !filter.queues.includes(data.queue as string)) return false;
  if (filter.jobTypes?.length && !filter.jobTypes.includes(data.job_type as string)) return false;
  if (filter.jobId && data.job_id !== filter.jobId) return false;
  return true;
}

/**
 * Receives the engine's events (directly, or back through a cross-process transport), keeps the newest
 * `capacity` in a ring buffer and calls subscribers synchronously. A throwing subscriber is isolated.
 */
export class EventHub {
  private readonly ring: OjsEvent[];
  private start = 0;
  private size = 0;
  private readonly listeners = new Set<{ filter: EventFilter; listener: Listener }>();
  private readonly unsubscribeTransport: (() => void) | undefined;

  constructor(
    private readonly capacity: number,
    private readonly transport?: EventTransport,
    private readonly onListenerError: (err: unknown) => void = () => {},
  ) {
    this.ring = new Array<OjsEvent>(capacity);
    this.unsubscribeTransport = transport?.subscribe((events) => this.deliver(events));
  }

  /** Publishes events that happened in this engine. */
  emit(events: readonly OjsEvent[]): void | Promise<void> {
    if (events.length === 0) return;
    if (this.transport) return this.transport.publish(events);
    this.deliver(events);
  }

  /** Whether anyone listens (lets hot paths skip building events nobody reads — polling always reads). */
  get hasTransport(): boolean {
    return this.transport !== undefined;
  }

  private deliver(events: readonly OjsEvent[]): void {
    for (const event of events) {
      const index = (this.start + this.size) % this.capacity;
      this.ring[index] = event;
      if (this.size < this.capacity) this.size++;
      else this.start = (this.start + 1) % this.capacity;
      for (const sub of this.listeners) {
        if (!matchesFilter(event, sub.filter)) continue;
        try {
          sub.listener(event);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
  }

  subscribe(filter: EventFilter, listener: Listener): () => void {
    const entry = { filter, listener };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** Events after `after` (exclusive; from the oldest kept when absent or no longer kept), oldest first. */
  poll(filter: EventFilter & { after?: string; limit: number }): { events: OjsEvent[]; hasMore: boolean } {
    let i = 0;
    if (filter.after) {
      for (let k = this.size - 1; k >= 0; k--) {
        if (this.ring[(this.start + k) % this.capacity]!.id === filter.after) {
          i = k + 1;
          break;
        }
      }
    }
    const events: OjsEvent[] = [];
    for (; i < this.size; i++) {
      const event = this.ring[(this.start + i) % this.capacity]!;
      if (!matchesFilter(event, filter)) continue;
      if (events.length === filter.limit) return { events, hasMore: true };
      events.push(event);
    }
    return { events, hasMore: false };
  }

  close(): void {
    this.unsubscribeTransport?.();
    this.listeners.clear();
  }
}
