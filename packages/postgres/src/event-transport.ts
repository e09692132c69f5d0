/**
 * Events across processes over LISTEN/NOTIFY. Publishing sends batches of events on one channel per
 * schema, split so each payload stays under Postgres's 8000-byte NOTIFY limit; an event too large for a
 * payload on its own is stored in `event_overflow` and travels as a reference. One dedicated connection
 * LISTENs and hands other processes' batches to the subscribers, in arrival order.
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

  /** Sends every queued event, oldest first; one publish statement per round. */
  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        this.queued = [];
        try {
          await this.send(this.options.pool, batch, false, this.publisherId);
        } catch (error) {
          this.options.onError(new Error(`ojskit postgres: ${batch.length} event(s) not published: ${(error as Error).message}`, { cause: error }));
        }
      }
    } finally {
      this.flushing = undefined;
    }
    this.countListeners();
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

  /** Sends one control message of `presence` on the channel. */
  private control(on: Queryable, message: string): Promise<unknown> {
    return this.options.sql.run(on, 'eventPublish', [this.channel, message], { oneOff: on !== this.options.pool });
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
    const packed = packEvents(events, MAX_PAYLOAD_BYTES - ENVELOPE_BYTES - 16);
    const items = packed.map((p) => p.text);
    const large = items.flatMap((item, index) => (Buffer.byteLength(item) + ENVELOPE_BYTES > MAX_PAYLOAD_BYTES ? [index] : []));
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
    await sql.run(on, 'eventPublish', [this.channel, packPayloads(items, head).join('\u001e')], { oneOff });
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.options.listenConfig);
    const lost = (error?: Error): void => {
      if (this.client !== client) return;
      this.client = undefined;
      // Deaf to hellos until listening again: publish, whoever listens.
      this.presence.deaf();
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (error !== undefined) this.options.onError(new Error(`ojskit postgres: LISTEN connection lost: ${error.message}`, { cause: error }));
      this.scheduleReconnect();
    };
    client.on('error', (error) => lost(error));
    client.on('end', () => lost(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.receive(message.payload);
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

  private receive(payload: string): void {
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
        const rows = await this.options.sql.run<{ id: string; payload: string }>(this.options.pool, 'eventOverflowRead', [refs]);
        const byId = new Map(rows.map((r) => [r.id, unpackEvent(JSON.parse(r.payload) as PackedEvent | OjsEvent)]));
        const events = items.flatMap((item) => {
          if (Array.isArray(item) || !('$overflow' in item)) return unpackItem(item);
          const event = byId.get(item.$overflow);
          return event === undefined ? [] : [event];
        });
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
