/**
 * Events across processes over a Redis Stream (`P:events`), bounded by `XADD MAXLEN ~`. Every process appends
 * its events to the stream and reads everyone's from it with `XREAD` on a dedicated connection, resuming from
 * the last entry it read: a reconnect (a Redis restart, a network blip) misses nothing that reached the
 * stream meanwhile, and a client's `Last-Event-ID` that fell out of a gateway's in-memory window is looked up
 * in the stream (`replay`). Pub/sub, which this replaced, dropped every message sent while a subscriber was
 * reconnecting (issue 25 item 11).
 *
 * Listeners in this process get this process's events directly (in publish order, at the end of the microtask
 * run they were published in) and skip them when they come back from the stream. Appends are coalesced: the
 * events of `publishDelayMs` (2 ms by default) go out in one `XADD` per entry of at most MAX_ENTRY_BYTES,
 * packed by core's `packEvents` (runs of alike job events as one group). An append that fails (Redis down)
 * is kept, in order, and retried until Redis takes it; only events of a process that dies within those
 * milliseconds after its transition are lost (the transition itself is written by its own script).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OjsEvent } from '@ojskit/core';
import { DEFAULT_EVENT_PUBLISH_DELAY_MS, eventIdMs, packEvents, unpackItem, type EventGroup, type EventTransport, type PackedEvent } from '@ojskit/core/driver';
import { corkUntilNextTick } from './write-coalescing.js';

type Listener = (events: readonly OjsEvent[]) => void;

// Entry format: one field `m` = `<publisher id>\n<JSON array of items from core's packEvents>`. The id comes
// first so a process can skip its own entries (it delivered them locally) without parsing them.
const SEPARATOR = '\n';
const FIELD = 'm';
/** An entry holds at most this many bytes of items, so the stream's size is bounded by its length. */
const MAX_ENTRY_BYTES = 16_384;
/** Entries one `XREAD` returns at most. */
const READ_COUNT = 1_000;
/** How long one `XREAD` blocks; the loop then reads again (and notices `close`). */
const READ_BLOCK_MS = 2_000;
/** Appends kept while Redis refuses them; past that the oldest are dropped and reported. */
const MAX_UNSENT_ENTRIES = 100_000;
/** How far around a cursor's own time `replay` looks for it (clock skew between writers, append delay). */
const REPLAY_SLACK_MS = 10_000;

/** How long `close` waits for appends in flight. */
const CLOSE_WAIT_MS = 2_000;

/** Default number of entries the stream keeps (each holds one event or more, so at least as many events). */
export const DEFAULT_EVENT_STREAM_MAX_LEN = 10_000;

export interface RedisEventTransportOptions {
  /** Connection used to append (shared with the driver). */
  publisher: Redis;
  /** Creates the dedicated reading connection (it blocks in `XREAD`), on first `subscribe`. */
  createReader: () => Redis;
  /** The stream's key. */
  stream: string;
  /** Entries the stream keeps, approximately (`XADD MAXLEN ~`); default DEFAULT_EVENT_STREAM_MAX_LEN. */
  maxLen?: number;
  /** How long events wait to be appended, so those of that time share entries (default 2 ms; 0: at the end of the microtask run). */
  publishDelayMs?: number;
  /** Where failures with no caller are reported (an append retried, an unreadable entry). */
  onError?: (error: unknown) => void;
}

/** The events of one stream entry's field value. */
function entryEvents(message: string): OjsEvent[] {
  const items = JSON.parse(message.slice(message.indexOf(SEPARATOR) + 1)) as Array<PackedEvent | OjsEvent | EventGroup>;
  return Array.isArray(items) ? items.flatMap(unpackItem) : [];
}

/** `EventTransport` over a Redis Stream. */
export class RedisEventTransport implements EventTransport {
  readonly publisherId = randomUUID();
  private readonly ownPrefix = this.publisherId + SEPARATOR;
  private readonly maxLen: string;
  private readonly listeners = new Set<Listener>();
  private pending: OjsEvent[] = [];
  private scheduled = false;
  /** Packed items delivered here, waiting to become entries. */
  private outbox: string[] = [];
  private outboxTimer: ReturnType<typeof setTimeout> | null = null;
  /** Entries not yet taken by Redis, oldest first. */
  private unsent: string[] = [];
  private sending: Promise<void> | null = null;
  private reader: Redis | null = null;
  private reading: Promise<void> | null = null;
  /** Resolves once the reader knows where the stream ends: events appended after that are read. */
  private started: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: RedisEventTransportOptions) {
    this.maxLen = String(options.maxLen ?? DEFAULT_EVENT_STREAM_MAX_LEN);
  }

  publish(events: readonly OjsEvent[]): void {
    if (events.length === 0 || this.closed) return;
    for (const event of events) this.pending.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    this.ensureReading();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once the reader has found the stream's end: events appended from then on reach this process. */
  async ready(): Promise<void> {
    this.ensureReading();
    await this.started;
  }

  /**
   * Up to `limit` events after the event `after`, oldest first, read from the stream; undefined when the
   * stream no longer holds (or never held) `after`. Whether more follow is `more`.
   */
  async replay(after: string, limit: number): Promise<{ events: OjsEvent[]; more: boolean } | undefined> {
    const ms = eventIdMs(after);
    if (ms === undefined) return undefined;
    const { publisher, stream } = this.options;
    let start = `${Math.max(0, ms - REPLAY_SLACK_MS)}-0`;
    let found = false;
    const events: OjsEvent[] = [];
    for (;;) {
      const entries = await publisher.xrange(stream, start, '+', 'COUNT', 500);
      for (const [id, fields] of entries) {
        // Appended within milliseconds of happening: past the slack, the cursor's entry is not in the stream.
        if (!found && Number.parseInt(id, 10) > ms + REPLAY_SLACK_MS) return undefined;
        start = `(${id}`;
        const message = fields[1];
        if (message === undefined) continue;
        for (const event of entryEvents(message)) {
          if (!found) found = event.id === after;
          else if (events.length === limit) return { events, more: true };
          else events.push(event);
        }
      }
      if (entries.length < 500) return found ? { events, more: false } : undefined;
    }
  }

  /** Events waiting to be appended (kept while Redis is unreachable). */
  get backlog(): number {
    return this.unsent.length + this.outbox.length + this.pending.length;
  }

  async close(): Promise<void> {
    // events published before close still reach the stream, if Redis takes them now
    this.flush();
    this.publishOutbox();
    this.closed = true;
    // Bounded: with Redis down an append waits for reconnect attempts, and a closing process cannot wait for them.
    const sending = this.sending;
    if (sending !== null) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([sending, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    }
    this.listeners.clear();
    const reader = this.reader;
    this.reader = null;
    if (reader) reader.disconnect();
    await this.reading;
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.deliver(batch);
    for (const item of packEvents(batch, MAX_ENTRY_BYTES)) this.outbox.push(item.text);
    const delay = this.options.publishDelayMs ?? DEFAULT_EVENT_PUBLISH_DELAY_MS;
    if (delay === 0) this.publishOutbox();
    else this.outboxTimer ??= setTimeout(() => this.publishOutbox(), delay);
  }

  /** Turns the outbox into entries of at most MAX_ENTRY_BYTES and sends them. */
  private publishOutbox(): void {
    if (this.outboxTimer !== null) clearTimeout(this.outboxTimer);
    this.outboxTimer = null;
    const items = this.outbox;
    this.outbox = [];
    if (items.length === 0) return;
    let entry: string[] = [];
    let bytes = 0;
    for (const item of items) {
      // String length, not bytes: a bound on size is all that is needed here.
      if (entry.length > 0 && bytes + item.length > MAX_ENTRY_BYTES) {
        this.unsent.push(`${this.ownPrefix}[${entry.join(',')}]`);
        entry = [];
        bytes = 0;
      }
      entry.push(item);
      bytes += item.length + 1;
    }
    this.unsent.push(`${this.ownPrefix}[${entry.join(',')}]`);
    if (this.unsent.length > MAX_UNSENT_ENTRIES) {
      const dropped = this.unsent.splice(0, this.unsent.length - MAX_UNSENT_ENTRIES);
      this.options.onError?.(new Error(`${dropped.length} event entries dropped: Redis has refused appends for too long`));
    }
    this.sending ??= this.send();
  }

  /** Appends the unsent entries, in order, until none is left; retries after a failure (Redis down). */
  private async send(): Promise<void> {
    let delay = 50;
    // After a refusal the entries go one at a time until one is taken: sent together while Redis comes back,
    // an early one could be refused (its retries used up while Redis was down) and a later one taken, and every
    // entry after the refused one goes again, so the later one would be appended twice (seen in CI under load).
    let alone = false;
    try {
      while (this.unsent.length > 0) {
        const entries = alone ? this.unsent.splice(0, 1) : this.unsent;
        if (!alone) this.unsent = [];
        corkUntilNextTick(this.options.publisher);
        const results = await Promise.allSettled(
          entries.map((m) => this.options.publisher.xadd(this.options.stream, 'MAXLEN', '~', this.maxLen, '*', FIELD, m)),
        );
        const failed = results.findIndex((r) => r.status === 'rejected');
        if (failed < 0) {
          delay = 50;
          alone = false;
          continue;
        }
        alone = true;
        // Keep the order: the first refused entry and everything after it go again (an entry that was taken
        // after a refused one, on a connection lost mid-batch, is appended twice; readers see its events twice
        // rather than never).
        this.unsent = [...entries.slice(failed), ...this.unsent];
        // A connection that is down is the driver's to report (once); a refusal on a live one is news.
        if (this.options.publisher.status === 'ready') this.options.onError?.((results[failed] as PromiseRejectedResult).reason);
        if (this.closed) return;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 1_000);
      }
    } finally {
      this.sending = null;
    }
  }

  private deliver(events: readonly OjsEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  private ensureReading(): void {
    if (this.reading || this.closed) return;
    const reader = this.options.createReader();
    this.reader = reader;
    let began: () => void = () => {};
    this.started = new Promise<void>((resolve) => (began = resolve));
    this.reading = this.read(reader, began);
  }

  /** Reads the stream from its current end, forever, delivering other processes' entries. */
  private async read(reader: Redis, began: () => void): Promise<void> {
    let last: string | undefined;
    let delay = 50;
    while (!this.closed && this.reader === reader) {
      try {
        if (last === undefined) {
          const [newest] = await reader.xrevrange(this.options.stream, '+', '-', 'COUNT', 1);
          last = newest?.[0] ?? '0-0';
          began();
        }
        const reply = (await reader.xread('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', this.options.stream, last)) as Array<
          [string, Array<[string, string[]]>]
        > | null;
        delay = 50;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          last = id;
          const message = fields[1];
          if (message === undefined || message.startsWith(this.ownPrefix)) continue;
          let events: OjsEvent[];
          try {
            events = entryEvents(message);
          } catch (error) {
            this.options.onError?.(error);
            continue;
          }
          if (events.length > 0) this.deliver(events);
        }
      } catch (error) {
        if (this.closed || this.reader !== reader) break;
        if (reader.status === 'ready') this.options.onError?.(error);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 1_000);
      }
    }
    began();
  }
}
