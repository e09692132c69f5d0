/** The event hub: fans events out to subscribers and keeps a bounded window of recent events for polling and resume. */
import type { EventFilter } from './filter.js';
import type { EventTransport } from './transport.js';
import { eventIdFor, eventSeqOf } from '../formats/ids.js';
import { timestampMs } from '../formats/timestamps.js';
import { DEFAULT_EVENT_ORDER_WINDOW_MS, JobEventOrder } from './job-order.js';
import { isJobEventRecord, jobEventToOjs, type EventInput, type JobEventRecord, type OjsEvent } from './event.js';

type Listener = (event: OjsEvent) => void;

/** Events read from a transport's store per round of `replay`. */
const STORE_PAGE = 1_000;

// A loop, not `types.some(closure)`: this runs for every kept event and every subscriber, and the closure was
// an allocation each time (~0.1 KB per processed job on Redis with a listening SDK worker).
function typeMatches(type: string, types: readonly string[] | undefined): boolean {
  if (!types?.length) return true;
  for (const t of types) {
    if (t.endsWith('*') ? type.startsWith(t.slice(0, -1)) : type === t) return true;
  }
  return false;
}

/** True when an event passes a filter (filters are AND-ed; a type ending in `*` matches by prefix). */
export function matchesFilter(event: OjsEvent, filter: EventFilter): boolean {
  const data = event.data as Record<string, unknown>;
  return (
    typeMatches(event.type, filter.types) &&
    (!filter.queues?.length || filter.queues.includes(data.queue as string)) &&
    (!filter.jobTypes?.length || filter.jobTypes.includes(data.job_type as string)) &&
    (!filter.jobId || data.job_id === filter.jobId)
  );
}

function recordMatches(record: Omit<JobEventRecord, 'kind'>, filter: EventFilter): boolean {
  return (
    typeMatches(record.type, filter.types) &&
    (!filter.queues?.length || filter.queues.includes(record.queue)) &&
    (!filter.jobTypes?.length || filter.jobTypes.includes(record.jobType)) &&
    (!filter.jobId || record.jobId === filter.jobId)
  );
}

/**
 * Receives the engine's events (directly, or back through a cross-process transport), keeps the newest
 * `capacity` and calls subscribers synchronously. A throwing subscriber is isolated. Events from a transport
 * pass through a `JobEventOrder` first, so each job's events are kept and delivered in lifecycle order even
 * when several processes published them.
 *
 * Job events are the bulk (several per job) and are mostly never read, so they are kept as columns of
 * plain values in preallocated arrays, and their wire form, id included, is built only when read: keeping
 * ten thousand built events alive cost a third of the memory backend's throughput in garbage collection.
 * Event ids are derived from the stored time and sequence number (`eventIdFor`), so every read agrees.
 */
export class EventHub {
  /** A built event (other kinds, or any event that came through a transport), else undefined. */
  private readonly built: Array<OjsEvent | undefined>;
  private readonly type: string[];
  private readonly time: string[];
  private readonly jobId: string[];
  private readonly jobType: string[];
  private readonly queue: string[];
  private readonly state: string[];
  private readonly from: Array<string | null>;
  private readonly attempt: number[];
  private readonly extra: Array<Record<string, unknown> | undefined>;
  private readonly since: Array<string | undefined>;
  /** Sequence number of the oldest kept event; the newest is `first + size - 1`. */
  private first = 0;
  private size = 0;
  private readonly listeners = new Set<{ filter: EventFilter; listener: Listener }>();
  private readonly unsubscribeTransport: (() => void) | undefined;
  /** Puts events from several processes back in each job's lifecycle order. */
  private readonly order: JobEventOrder | undefined;

  constructor(
    private readonly capacity: number,
    private readonly transport?: EventTransport,
    private readonly onListenerError: (err: unknown) => void = () => {},
    orderWindowMs = DEFAULT_EVENT_ORDER_WINDOW_MS,
  ) {
    const n = Math.max(1, capacity);
    this.capacity = n;
    this.built = new Array(n);
    this.type = new Array(n);
    this.time = new Array(n);
    this.jobId = new Array(n);
    this.jobType = new Array(n);
    this.queue = new Array(n);
    this.state = new Array(n);
    this.from = new Array(n);
    this.attempt = new Array(n);
    this.extra = new Array(n);
    this.since = new Array(n);
    if (transport !== undefined) {
      const order = new JobEventOrder((event) => this.store(event), orderWindowMs);
      this.order = order;
      this.unsubscribeTransport = transport.subscribe((events) => order.push(events));
    }
  }

  /**
   * Publishes events that happened in this engine. `tx` is the caller's open transaction when the change was
   * made inside it (transactional enqueue): the transport publishes within it, so a rollback takes the events too.
   */
  emit(events: readonly EventInput[], tx?: unknown): void | Promise<void> {
    if (events.length === 0) return;
    // Heard by nobody else (the transport is quiet): kept as without a transport, unbuilt and past the order,
    // since only this process's events arrive meanwhile, in order. Building, handing over and ordering them
    // cost a tenth of Node's time per processed job (Redis, SDK worker, no-op jobs). The order then has not
    // heard of the jobs that changed meanwhile: once another process listens, the next event of such a job
    // from elsewhere waits its window, as after a restart.
    if (!this.transport || (tx === undefined && this.transport.quiet === true)) {
      for (const event of events) this.store(event);
      return;
    }
    // Inside an open transaction the change is not visible yet: watchers hear it back from the transport.
    if (tx === undefined && this.watchers.size > 0) this.tellWatchers(events);
    // Other processes need the wire form: build it now, under an id that is ours.
    const built = events.map((e) => (isJobEventRecord(e) ? jobEventToOjs(e, eventIdFor(timestampMs(e.time), this.nextSeq++)) : e));
    return tx === undefined ? this.transport.publish(built) : this.transport.publish(built, tx);
  }

  /** Ids for events this engine builds for a transport (their own sequence, not the ring's). */
  private nextSeq = 0x80000000;

  private store(event: EventInput): void {
    const seq = this.first + this.size;
    const i = seq % this.capacity;
    if (this.size < this.capacity) this.size++;
    else this.first++;
    if (isJobEventRecord(event)) {
      this.built[i] = undefined;
      this.type[i] = event.type;
      this.time[i] = event.time;
      this.jobId[i] = event.jobId;
      this.jobType[i] = event.jobType;
      this.queue[i] = event.queue;
      this.state[i] = event.state;
      this.from[i] = event.from;
      this.attempt[i] = event.attempt;
      this.extra[i] = event.extra;
      this.since[i] = event.since;
      if (this.listeners.size === 0) return;
      let built: OjsEvent | undefined;
      for (const sub of this.listeners) {
        if (!recordMatches(event, sub.filter)) continue;
        built ??= this.read(seq);
        this.deliver(sub.listener, built);
      }
      return;
    }
    this.built[i] = event;
    this.extra[i] = undefined;
    this.since[i] = undefined;
    for (const sub of this.listeners) if (matchesFilter(event, sub.filter)) this.deliver(sub.listener, event);
  }

  private deliver(listener: Listener, event: OjsEvent): void {
    try {
      listener(event);
    } catch (err) {
      this.onListenerError(err);
    }
  }

  /** The wire form of the kept event with sequence number `seq`. */
  private read(seq: number): OjsEvent {
    const i = seq % this.capacity;
    const built = this.built[i];
    if (built) return built;
    return jobEventToOjs(
      {
        type: this.type[i] as JobEventRecord['type'],
        jobId: this.jobId[i]!,
        jobType: this.jobType[i]!,
        queue: this.queue[i]!,
        state: this.state[i] as JobEventRecord['state'],
        from: this.from[i] as JobEventRecord['from'],
        attempt: this.attempt[i]!,
        time: this.time[i]!,
        extra: this.extra[i],
        since: this.since[i],
      },
      eventIdFor(timestampMs(this.time[i]!), seq),
    );
  }

  subscribe(filter: EventFilter, listener: Listener): () => void {
    const entry = { filter, listener };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  private readonly watchers = new Set<{ filter: EventFilter; listener: () => void }>();

  /**
   * Calls `listener` when this engine emits an event matching `filter`, as it emits it. With a transport,
   * subscribers hear an event only once it came back through it (another hop: a pub/sub message, a NOTIFY);
   * a FETCH waiting in this same process for work uses this too, so it claims a job enqueued here one hop
   * sooner. Without a transport, subscribers hear events as they are emitted and watchers are not called.
   */
  watchEmits(filter: EventFilter, listener: () => void): () => void {
    const entry = { filter, listener };
    this.watchers.add(entry);
    return () => this.watchers.delete(entry);
  }

  private tellWatchers(events: readonly EventInput[]): void {
    for (const watcher of this.watchers) {
      const heard = events.some((e) => (isJobEventRecord(e) ? recordMatches(e, watcher.filter) : matchesFilter(e, watcher.filter)));
      if (!heard) continue;
      try {
        watcher.listener();
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /**
   * Sequence number just after the event `after`, or the oldest kept when absent or no longer kept;
   * `lost` when `after` was given but is not (or no longer) in the window.
   */
  private startAfter(after: string | undefined): number {
    this.lost = false;
    if (!after) return this.first;
    const end = this.first + this.size;
    const low = eventSeqOf(after);
    if (low !== undefined && this.size > 0) {
      // Ids carry the sequence's low 32 bits: the kept event with those bits is the newest such one. It is the
      // cursor's event only if its whole id is the cursor (its time too): an id 2^32 events older, evicted long
      // ago, has the same low bits, and matching it would resume silently in the wrong place.
      const newest = end - 1;
      const seq = newest - (((newest % 2 ** 32) - low + 2 ** 32) % 2 ** 32);
      const i = seq % this.capacity;
      if (seq >= this.first && !this.built[i] && eventIdFor(timestampMs(this.time[i]!), seq) === after) return seq + 1;
    }
    for (let seq = end - 1; seq >= this.first; seq--) if (this.built[seq % this.capacity]?.id === after) return seq + 1;
    this.lost = true;
    return this.first;
  }

  /** Set by `startAfter`: whether the last cursor looked up was not in the window. */
  private lost = false;

  /**
   * Events after `after` (exclusive), oldest first. When `after` is not in the window (evicted, or never
   * seen by this process) the events start from the oldest kept and `cursorLost` is true: the caller may have
   * missed events and must be told so, never silently restarted.
   */
  poll(filter: EventFilter & { after?: string; limit: number }): { events: OjsEvent[]; hasMore: boolean; cursorLost?: true } {
    const events: OjsEvent[] = [];
    const end = this.first + this.size;
    const start = this.startAfter(filter.after);
    const lost = this.lost;
    const answer = (hasMore: boolean): { events: OjsEvent[]; hasMore: boolean; cursorLost?: true } =>
      lost ? { events, hasMore, cursorLost: true } : { events, hasMore };
    for (let seq = start; seq < end; seq++) {
      const i = seq % this.capacity;
      const built = this.built[i];
      const matches = built
        ? matchesFilter(built, filter)
        : recordMatches(
            {
              type: this.type[i] as JobEventRecord['type'],
              jobId: this.jobId[i]!,
              jobType: this.jobType[i]!,
              queue: this.queue[i]!,
              state: this.state[i] as JobEventRecord['state'],
              from: null,
              attempt: 0,
              time: '',
              extra: undefined,
            },
            filter,
          );
      if (!matches) continue;
      if (events.length === filter.limit) return answer(true);
      events.push(built ?? this.read(seq));
    }
    return answer(false);
  }

  /**
   * Events after `after` read from the transport's store (`EventTransport.replay`), for a cursor that is not
   * in this process's window: it may still be in the store's (a gateway that started after the cursor's
   * event, or kept fewer events). Undefined when the transport keeps no store or no longer holds `after`.
   * `cursor` is the last event looked at, so a filtered read that found few events still moves on.
   */
  async replay(filter: EventFilter & { after: string; limit: number }): Promise<{ events: OjsEvent[]; hasMore: boolean; cursor: string } | undefined> {
    const transport = this.transport;
    if (transport?.replay === undefined) return undefined;
    const events: OjsEvent[] = [];
    let cursor = filter.after;
    for (;;) {
      const page = await transport.replay(cursor, STORE_PAGE);
      if (page === undefined) return cursor === filter.after ? undefined : { events, hasMore: false, cursor };
      for (const event of page.events) {
        if (matchesFilter(event, filter)) {
          if (events.length === filter.limit) return { events, hasMore: true, cursor: events.at(-1)!.id };
          events.push(event);
        }
        cursor = event.id;
      }
      if (!page.more) return { events, hasMore: false, cursor };
    }
  }

  close(): void {
    this.unsubscribeTransport?.();
    this.order?.close();
    this.listeners.clear();
  }
}
