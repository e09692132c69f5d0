/**
 * Events across processes over LISTEN/NOTIFY, backed by a log. Publishing sends batches of events on one
 * channel per schema, split so each payload stays under Postgres's 8000-byte NOTIFY limit; an event too large
 * for a payload on its own is stored in `event_overflow` and travels as a reference. The statement that sends
 * a payload also appends it to `event_log` and tags the notification with the row's sequence number. One
 * dedicated connection LISTENs and hands other processes' batches to the subscribers, in arrival order; when
 * that connection was lost, the new one reads what it missed from the log (NOTIFYs sent meanwhile are gone),
 * and a Last-Event-ID outside a process's in-memory window is looked up there (`replay`). Publishers trim the
 * log to about `eventLogMaxRows` rows. A publish that fails (the server down) is kept and sent again.
 *
 * This process's own events (published outside a transaction) reach its subscribers at once, in publish
 * order, and are skipped when they come back from the channel. Events published inside a caller's
 * transaction exist only if it commits, so they are delivered from the channel, to every process alike.
 *
 * While no other process listens, events published outside a transaction are not sent at all (core's
 * `ListenerPresence`). Each LISTEN session holds a shared advisory lock (`eventListenerJoin`), which the server
 * drops with the session, so counting the lock's holders (`eventListenerCount`, at most once every
 * PRESENCE_PROBE_MS while publishing) tells whether anyone else listens. A session that starts listening says
 * hello on the channel and `listen()` resolves once the others answered. `publishWhenAlone` keeps publishing
 * (for a LISTEN that is not ojskit, such as psql's).
 */
import { randomUUID } from 'node:crypto';
import type { OjsEvent } from '@ojskit/core';
import {
  DEFAULT_EVENT_PUBLISH_DELAY_MS,
  eventIdMs,
  ListenerPresence,
  PRESENCE_PROBE_MS,
  presenceMessage,
  packEvent,
  packEvents,
  unpackEvent,
  unpackItem,
  type EventGroup,
  type EventTransport,
  type PackedEvent,
} from '@ojskit/core/driver';
import { settingMs } from '@ojskit/core/formats';
import pg from 'pg';
import type { ClientConfig, Pool } from 'pg';
import type { Queryable, Statements } from './statements.js';

export { packEvent, unpackEvent };

/** NOTIFY payloads must be shorter than 8000 bytes. */
export const MAX_PAYLOAD_BYTES = 7999;
/** Room the publish statement needs to tag a payload with its log sequence number (`,"s":<up to 19 digits>`). */
const SEQ_TAG_BYTES = 32;
/** Rows the event log keeps, about (each publisher trims behind itself: see `trimLog`). */
export const DEFAULT_EVENT_LOG_MAX_ROWS = 10_000;
/** How far around the time of a lost connection or of a cursor's event the log is read (clock skew, commit order). */
const LOG_SLACK_MS = 5_000;
/** Rows read from the log per statement. */
const LOG_PAGE = 500;
/** Sequence numbers remembered as delivered, so a catch-up read does not deliver a batch twice. */
const SEEN_SEQS = 8_192;
/** Events kept for a publish that failed, beyond which the oldest are dropped (and reported). */
const MAX_UNSENT_EVENTS = 100_000;

type Listener = (events: readonly OjsEvent[]) => void;

/** A placeholder for an event stored in `event_overflow`. */
interface OverflowRef {
  $overflow: string;
}

/** A NOTIFY payload. */
interface Envelope {
  /** The publishing transport, when it delivered the events locally already (it skips them). */
  p?: string;
  e: Array<PackedEvent | OjsEvent | OverflowRef | EventGroup>;
  /** The payload's row in `event_log` (absent on control messages). */
  s?: number;
}

/** The log sequence number a publish statement appended to a payload (`…,"s":<seq>}`), else undefined. */
function payloadSeq(payload: string): number | undefined {
  const at = payload.lastIndexOf(',"s":');
  if (at === -1) return undefined;
  const seq = Number(payload.slice(at + 5, -1));
  return Number.isSafeInteger(seq) ? seq : undefined;
}

export interface PgEventTransportOptions {
  pool: Pool;
  sql: Statements;
  /** Connection settings of the LISTEN client. */
  listenConfig: ClientConfig;
  /** Called with failures that have no caller to throw to (a lost listen connection, a failed publish). */
  onError: (error: Error) => void;
  /**
   * How long events published outside a transaction wait before their NOTIFY statement, so that the events of
   * that time share one (default 2 ms; 0: at the end of the event-loop turn). An idle worker's job publishes
   * `job.enqueued`, `job.started` and `job.completed` a fraction of a millisecond apart, each behind another
   * answer: one statement a job instead of three. While statements follow each other (a backlog), each
   * carries what was published during the one before, as without a delay.
   */
  publishDelayMs?: number;
  /** Publish even while no other ojskit process listens (default false). */
  publishWhenAlone?: boolean;
  /** Rows `event_log` keeps, about (default DEFAULT_EVENT_LOG_MAX_ROWS); the replay window of Last-Event-ID. */
  eventLogMaxRows?: number;
}

/**
 * Splits serialised items into payloads `<head>[item,item,…]}` of at most `maxBytes` bytes each.
 * @example packPayloads(['{"a":1}', '{"b":2}'], '{"e":', 7999) // ['{"e":[{"a":1},{"b":2}]}']
 */
export function packPayloads(items: readonly string[], head: string, maxBytes = MAX_PAYLOAD_BYTES): string[] {
  const overhead = Buffer.byteLength(head) + 3; // '[', ']', '}'
  const payloads: string[] = [];
  let current: string[] = [];
  let size = overhead;
  for (const item of items) {
    const bytes = Buffer.byteLength(item);
    if (bytes + overhead > maxBytes) throw new Error('packPayloads: an item is larger than a payload');
    if (current.length > 0 && size + 1 + bytes > maxBytes) {
      payloads.push(`${head}[${current.join(',')}]}`);
      current = [];
      size = overhead;
    }
    size += bytes + (current.length > 0 ? 1 : 0);
    current.push(item);
  }
  if (current.length > 0) payloads.push(`${head}[${current.join(',')}]}`);
  return payloads;
}

/** Room for the envelope around one event (the longest head plus brackets). */
const ENVELOPE_BYTES = Buffer.byteLength(`{"p":"${randomUUID()}","e":[]}`);

export class PgEventTransport implements EventTransport {
  /** The channel: one per schema, so drivers on other schemas of the same database never hear it. */
  readonly channel: string;
  /** Identifies this transport's own notifications, which it delivered locally already. */
  readonly publisherId = randomUUID();
  private readonly ownHead = `{"p":"${this.publisherId}","e":`;
  private readonly listeners = new Set<Listener>();
  private queued: OjsEvent[] = [];
  private flushing: Promise<void> | undefined;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelayMs = 100;
  /** Serialises delivery: a batch with overflow references waits for its read before later batches go out. */
  private delivery: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly presence: ListenerPresence;
  /** When the listeners may be counted next, and whether a count is out. */
  private countAt = 0;
  private counting = false;
  /** Log rows delivered (or skipped as our own) lately: a ring of the last SEEN_SEQS, and as a set. */
  private readonly seenRing = new Array<number | undefined>(SEEN_SEQS);
  private seenAt = 0;
  private readonly seen = new Set<number>();
  /** When the LISTEN connection was lost (epoch ms), until the new one has read what it missed. */
  private lostAt: number | undefined;
  /** Payloads this process appended to the log since it last trimmed it. */
  private appended = 0;

  constructor(private readonly options: PgEventTransportOptions) {
    this.channel = `ojskit_${options.sql.schema}`;
    this.publishDelayMs = settingMs('eventPublishDelayMs', options.publishDelayMs ?? DEFAULT_EVENT_PUBLISH_DELAY_MS);
    this.presence = new ListenerPresence(this.publisherId, options.publishWhenAlone !== true);
  }

  private readonly publishDelayMs: number;

  /**
   * Publishes events. With `tx` (a caller's client inside their open transaction) the notifications go out
   * only if that transaction commits, and reach this process's subscribers from the channel too. Without,
   * local subscribers get the events now, and the NOTIFY is queued: one background flush (after `publishDelayMs`) sends
   * everything published meanwhile, in order, so publishers never wait on the database.
   */
  publish(events: readonly OjsEvent[], tx?: unknown): void | Promise<void> {
    if (events.length === 0 || this.closed) return;
    if (tx !== undefined) return this.send(tx as Queryable, events, true, undefined);
    this.deliver(events);
    if (!this.presence.publishing) return;
    for (const event of events) this.queued.push(event);
    this.flushing ??= new Promise<void>((resolve) => (this.publishDelayMs > 0 ? setTimeout(resolve, this.publishDelayMs) : setImmediate(resolve))).then(() =>
      this.flush(),
    );
  }

  /** No other process would hear events now (see `EventTransport.quiet`); local delivery is immediate here. */
  get quiet(): boolean {
    return this.client !== undefined && !this.closed && !this.presence.publishing;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    void this.listen().catch(() => {}); // failures are reported through onError and retried
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Resolves once the LISTEN connection is up (subscribing starts it; call this to wait for it). */
  listen(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.client !== undefined) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Sends what is queued, then stops listening. */
  async close(): Promise<void> {
    await this.flushing;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await client.end().catch(() => {});
    await this.delivery;
  }

  /** Sends every queued event, oldest first; one publish statement per round. A failed round is kept and tried again. */
  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        this.queued = [];
        try {
          await this.send(this.options.pool, batch, false, this.publisherId);
        } catch (error) {
          if (this.closed) {
            this.options.onError(new Error(`ojskit postgres: ${batch.length} event(s) not published: ${(error as Error).message}`, { cause: error }));
            break;
          }
          this.keepUnsent(batch, error as Error);
          await new Promise((resolve) => setTimeout(resolve, 250).unref());
        }
      }
    } finally {
      this.flushing = undefined;
    }
    this.countListeners();
    this.trimLog();
  }

  /** Puts a batch whose publish failed back in front of the queue, within MAX_UNSENT_EVENTS. */
  private keepUnsent(batch: OjsEvent[], error: Error): void {
    const all = batch.concat(this.queued);
    const dropped = Math.max(0, all.length - MAX_UNSENT_EVENTS);
    this.queued = dropped > 0 ? all.slice(dropped) : all;
    this.options.onError(
      new Error(
        dropped > 0
          ? `ojskit postgres: ${dropped} event(s) dropped, ${this.queued.length} kept for publishing: ${error.message}`
          : `ojskit postgres: ${batch.length} event(s) not published yet, trying again: ${error.message}`,
        { cause: error },
      ),
    );
  }

  /**
   * Trims `event_log` to about `eventLogMaxRows` rows once this process appended a tenth of that since it last
   * did: each publisher trims behind itself, so the log holds at most about the bound plus a tenth per process.
   */
  private trimLog(): void {
    const keep = this.options.eventLogMaxRows ?? DEFAULT_EVENT_LOG_MAX_ROWS;
    if (this.closed || this.appended < Math.max(1, keep / 10)) return;
    this.appended = 0;
    this.options.sql
      .run(this.options.pool, 'eventLogTrim', [keep])
      .catch((error: unknown) => this.options.onError(new Error(`ojskit postgres: cannot trim the event log: ${(error as Error).message}`, { cause: error })));
  }

  /**
   * Up to `limit` events published after the event `after` (by any process), oldest first, read from
   * `event_log`; undefined when the log no longer holds (or never held) `after`.
   */
  async replay(after: string, limit: number): Promise<{ events: OjsEvent[]; more: boolean } | undefined> {
    const ms = eventIdMs(after);
    if (ms === undefined) return undefined;
    let seq = 0;
    let found = false;
    const events: OjsEvent[] = [];
    for (;;) {
      const rows = await this.options.sql.run<{ seq: string; at: number; payload: string }>(this.options.pool, 'eventLogRead', [
        seq,
        ms - LOG_SLACK_MS,
        LOG_PAGE,
      ]);
      for (const row of rows) {
        // Appended within milliseconds of happening: past the slack, the cursor's row is not in the log.
        if (!found && row.at > ms + LOG_SLACK_MS) return undefined;
        seq = Number(row.seq);
        for (const event of await this.payloadEvents(row.payload)) {
          if (!found) found = event.id === after;
          else if (events.length === limit) return { events, more: true };
          else events.push(event);
        }
      }
      if (rows.length < LOG_PAGE) return found ? { events, more: false } : undefined;
    }
  }

  /** The events of a logged payload (overflowed ones read back), or none for a control message. */
  private async payloadEvents(payload: string): Promise<OjsEvent[]> {
    const envelope = JSON.parse(payload) as Envelope;
    return Array.isArray(envelope.e) ? this.itemEvents(envelope.e) : [];
  }

  /** The events of a payload's items, those stored in `event_overflow` read back (one statement). */
  private async itemEvents(items: Envelope['e']): Promise<OjsEvent[]> {
    const refs = items.flatMap((item) => (!Array.isArray(item) && '$overflow' in item ? [item.$overflow] : []));
    const byId = new Map<string, OjsEvent>();
    if (refs.length > 0) {
      const rows = await this.options.sql.run<{ id: string; payload: string }>(this.options.pool, 'eventOverflowRead', [refs]);
      for (const r of rows) byId.set(r.id, unpackEvent(JSON.parse(r.payload) as PackedEvent | OjsEvent));
    }
    return items.flatMap((item) => {
      if (Array.isArray(item) || !('$overflow' in item)) return unpackItem(item);
      const event = byId.get(item.$overflow);
      return event === undefined ? [] : [event];
    });
  }

  /** Counts the sessions listening to this schema's events, for `presence` (at most once every PRESENCE_PROBE_MS). */
  private countListeners(): void {
    if (!this.presence.enabled || this.counting || this.client === undefined || Date.now() < this.countAt) return;
    this.counting = true;
    this.countAt = Date.now() + PRESENCE_PROBE_MS;
    const mark = this.presence.mark;
    this.options.sql.run<{ n: number }>(this.options.pool, 'eventListenerCount', [this.listenKey]).then(
      ([row]) => {
        this.counting = false;
        this.presence.counted(row?.n ?? 0, mark, this.client !== undefined);
      },
      (error: unknown) => {
        this.counting = false;
        this.options.onError(new Error(`ojskit postgres: cannot count event listeners: ${(error as Error).message}`, { cause: error }));
      },
    );
  }

  /** The advisory lock key every LISTEN session of this schema holds shared. */
  private get listenKey(): string {
    return `ojskit:listen:${this.options.sql.schema}`;
  }

  /** Sends one control message of `presence` on the channel (not logged). */
  private control(on: Queryable, message: string): Promise<unknown> {
    return this.options.sql.run(on, 'eventNotify', [this.channel, message], { oneOff: on !== this.options.pool });
  }

  /** Answers another transport's hello (see `presence.handle`). */
  private readonly answer = (text: string): void => {
    this.control(this.options.pool, text).catch((error: unknown) =>
      this.options.onError(new Error(`ojskit postgres: cannot answer a hello: ${(error as Error).message}`, { cause: error })),
    );
  };

  /**
   * Joins the listeners and says hello on `client` (this transport's LISTEN session); resolves once every
   * other listener counted answered, or after HELLO_ANSWER_WAIT_MS. Done with `publishWhenAlone` too: other
   * processes must count this one, or they would stop publishing to it.
   */
  private async greet(client: pg.Client): Promise<void> {
    const { sql } = this.options;
    await sql.run(client, 'eventListenerJoin', [this.listenKey], { oneOff: true });
    const [row] = await sql.run<{ n: number }>(client, 'eventListenerCount', [this.listenKey], { oneOff: true });
    const hello = this.presence.hello();
    const answered = this.presence.answersFrom((row?.n ?? 1) - 1);
    await this.control(client, hello);
    await answered;
  }

  private async send(on: Queryable, events: readonly OjsEvent[], oneOff: boolean, publisherId: string | undefined): Promise<void> {
    const { sql } = this.options;
    // Runs of alike job events travel as one group item each (about half the payloads); a group always fits a
    // payload, so only a single event can be too large for one.
    const packed = packEvents(events, MAX_PAYLOAD_BYTES - SEQ_TAG_BYTES - ENVELOPE_BYTES - 16);
    const items = packed.map((p) => p.text);
    const large = items.flatMap((item, index) => (Buffer.byteLength(item) + ENVELOPE_BYTES + SEQ_TAG_BYTES > MAX_PAYLOAD_BYTES ? [index] : []));
    if (large.length > 0) {
      const rows = await sql.run<{ id: string }>(
        on,
        'eventOverflowInsert',
        [large.map((i) => Date.parse(packed[i]!.event!.time) || 0), large.map((i) => items[i]!)],
        { oneOff },
      );
      const ids = rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
      large.forEach((index, n) => {
        items[index] = JSON.stringify({ $overflow: ids[n]! } satisfies OverflowRef);
      });
    }
    const head = publisherId === undefined ? '{"e":' : this.ownHead;
    const payloads = packPayloads(items, head, MAX_PAYLOAD_BYTES - SEQ_TAG_BYTES);
    await sql.run(on, 'eventPublish', [this.channel, payloads.join('\u001e')], { oneOff });
    this.appended += payloads.length;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.options.listenConfig);
    const lost = (error?: Error): void => {
      if (this.client !== client) return;
      this.client = undefined;
      this.lostAt ??= Date.now();
      // Deaf to hellos until listening again: publish, whoever listens.
      this.presence.deaf();
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (error !== undefined) this.options.onError(new Error(`ojskit postgres: LISTEN connection lost: ${error.message}`, { cause: error }));
      this.scheduleReconnect();
    };
    client.on('error', (error) => lost(error));
    client.on('end', () => lost(new Error('connection ended')));
    // After a loss, event notifications wait until the log has given what was missed, so events keep their
    // order; control messages (hellos, answers: untagged) go through at once, as the greeting waits for them.
    const held: string[] | undefined = this.lostAt !== undefined ? [] : undefined;
    let holding = held !== undefined;
    client.on('notification', (message) => {
      if (message.channel !== this.channel || message.payload === undefined) return;
      if (holding && payloadSeq(message.payload) !== undefined) held!.push(message.payload);
      else this.receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
      await this.greet(client);
    } catch (error) {
      void client.end().catch(() => {});
      this.options.onError(new Error(`ojskit postgres: cannot LISTEN: ${(error as Error).message}`, { cause: error }));
      this.scheduleReconnect();
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = 100;
    if (this.lostAt !== undefined) await this.catchUp(this.lostAt);
    holding = false;
    for (const payload of held ?? []) this.receive(payload);
  }

  /**
   * Delivers what other processes logged since about `lostAt` that this process has not delivered: their
   * NOTIFYs were sent while nobody here listened. Already listening again, so nothing later is missed; a
   * batch that arrives both ways is delivered once (`seen`).
   */
  private async catchUp(lostAt: number): Promise<void> {
    let seq = 0;
    try {
      for (;;) {
        const rows = await this.options.sql.run<{ seq: string; at: number; payload: string }>(this.options.pool, 'eventLogRead', [
          seq,
          lostAt - LOG_SLACK_MS,
          LOG_PAGE,
        ]);
        for (const row of rows) {
          seq = Number(row.seq);
          this.receive(row.payload, seq);
        }
        if (rows.length < LOG_PAGE) break;
      }
      this.lostAt = undefined;
    } catch (error) {
      this.options.onError(new Error(`ojskit postgres: cannot read the event log after a reconnect: ${(error as Error).message}`, { cause: error }));
    }
  }

  /** Records a log row as delivered; false when it was already. */
  private firstSight(seq: number): boolean {
    if (this.seen.has(seq)) return false;
    this.seen.add(seq);
    const evicted = this.seenRing[this.seenAt];
    if (evicted !== undefined) this.seen.delete(evicted);
    this.seenRing[this.seenAt] = seq;
    this.seenAt = (this.seenAt + 1) % SEEN_SEQS;
    return true;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer !== undefined) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, 2_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed && this.client === undefined) void this.listen().catch(() => {});
    }, delay);
    this.reconnectTimer.unref();
  }

  private receive(payload: string, logSeq?: number): void {
    const seq = logSeq ?? payloadSeq(payload);
    if (seq !== undefined && !this.firstSight(seq)) return;
    // Our own batches come back too; recognise them by their head without parsing them.
    if (payload.startsWith(this.ownHead)) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch (error) {
      this.options.onError(new Error('ojskit postgres: unreadable event payload', { cause: error }));
      return;
    }
    const control = presenceMessage(envelope);
    if (control !== undefined) this.presence.handle(control, this.answer);
    if (envelope.p === this.publisherId || !Array.isArray(envelope.e)) return;
    const items = envelope.e;
    const refs = items.flatMap((item) => (!Array.isArray(item) && '$overflow' in item ? [item.$overflow] : []));
    if (refs.length === 0) {
      // The common case: deliver now unless an earlier batch is still reading its overflow.
      const events = (items as Array<PackedEvent | OjsEvent | EventGroup>).flatMap(unpackItem);
      this.delivery = this.delivery.then(() => this.deliver(events));
      return;
    }
    this.delivery = this.delivery.then(async () => {
      try {
        const events = await this.itemEvents(items);
        this.deliver(events);
      } catch (error) {
        this.options.onError(new Error('ojskit postgres: cannot read overflowed events', { cause: error }));
      }
    });
  }

  private deliver(events: readonly OjsEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (error) {
        this.options.onError(new Error('ojskit postgres: event subscriber threw', { cause: error }));
      }
    }
  }
}
