/**
 * Events across processes over Redis pub/sub. Listeners in this process get this process's events directly
 * (in publish order, at the end of the microtask run they were published in) and other processes' events
 * from the channel; nothing is stored in Redis, so there is no event stream to trim.
 *
 * Publishes are coalesced: every event of `publishDelayMs` (2 ms by default) goes out in one PUBLISH. An idle
 * worker's job used to cost three PUBLISH writes (enqueued, started, completed: each behind a different reply)
 * and each socket write costs Node ~70–100 µs of CPU on the 2-core machine of the benchmarks, two of them on
 * the way from enqueue to handler start (socket probe, 2026-11-25: 4.5 → 3.6 writes and 2.1 → 1.2 ms per
 * idle-worker job). Other processes see events that much later.
 *
 * Nobody else listening, nothing is packed or published (core's `ListenerPresence`): a PUBLISH answers how
 * many clients got it, and when that is only this process's own subscriber, the transport stops publishing
 * until another process says hello on the channel or a probe counts again. `ready()` waits for the answers
 * to this process's own hello. Off with `publishWhenAlone` (Redis Cluster counts only one node's subscribers).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OjsEvent } from '@ojskit/core';
import {
  DEFAULT_EVENT_PUBLISH_DELAY_MS,
  ListenerPresence,
  packEvents,
  presenceMessage,
  unpackItem,
  type EventGroup,
  type EventTransport,
  type PackedEvent,
} from '@ojskit/core/driver';
import { corkUntilNextTick } from './write-coalescing.js';

type Listener = (events: readonly OjsEvent[]) => void;

// Message format: `<publisher id>\n<JSON array of items from core's packEvents>`: runs of alike job events (the
// job.started of one claim, the job.completed of one ACK batch) as one group each, other events packed one by
// one, a fraction of the bytes of CloudEvents JSON. The id comes first so a process can drop its own messages
// (it delivered them locally) without parsing them.
const SEPARATOR = '\n';
/** Pub/sub messages have no practical size limit: a group may hold a whole run. */
const MAX_GROUP_BYTES = 1 << 24;

export interface RedisEventTransportOptions {
  /** Connection used to PUBLISH (shared with the driver). */
  publisher: Redis;
  /** Creates the dedicated SUBSCRIBE connection, on first `subscribe`. */
  createSubscriber: () => Redis;
  channel: string;
  /** How long events wait to be published to other processes (default 2 ms; 0: at the end of the microtask run). */
  publishDelayMs?: number;
  /** Where publish failures are reported (events are best effort: the state change already committed). */
  onError?: (error: unknown) => void;
  /**
   * Publish even when no other process listens (default false). Set it on Redis Cluster, where a PUBLISH
   * counts only the subscribers of the node it ran on.
   */
  publishWhenAlone?: boolean;
}

/** `EventTransport` over Redis pub/sub. */
export class RedisEventTransport implements EventTransport {
  readonly publisherId = randomUUID();
  private readonly listeners = new Set<Listener>();
  private pending: OjsEvent[] = [];
  private scheduled = false;
  /** Packed items delivered here, waiting to be published to other processes. */
  private outbox: string[] = [];
  private outboxTimer: ReturnType<typeof setTimeout> | null = null;
  private subscriber: Redis | null = null;
  private subscribed: Promise<unknown> | null = null;
  private closed = false;
  /** This process's subscription is active: it would hear a hello, so it may stop publishing. */
  private listening = false;
  private readonly presence: ListenerPresence;
  /** The answers to this process's hello, which `ready()` waits on. */
  private greeted: Promise<void> | null = null;

  constructor(private readonly options: RedisEventTransportOptions) {
    this.presence = new ListenerPresence(this.publisherId, options.publishWhenAlone !== true);
  }

  publish(events: readonly OjsEvent[]): void {
    if (events.length === 0 || this.closed) return;
    for (const event of events) this.pending.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** No other process would hear events now, and none waits for local delivery (see `EventTransport.quiet`). */
  get quiet(): boolean {
    return this.listening && !this.scheduled && !this.closed && !this.presence.publishing;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    this.ensureSubscribed();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once the channel subscription is active (tests wait on it before publishing elsewhere). */
  async ready(): Promise<void> {
    this.ensureSubscribed();
    await this.subscribed;
    await this.greeted;
  }

  async close(): Promise<void> {
    // events published before close still reach other processes
    this.flush();
    this.publishOutbox();
    this.closed = true;
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.deliver(batch);
    if (!this.presence.publishing) return;
    for (const item of packEvents(batch, MAX_GROUP_BYTES)) this.outbox.push(item.text);
    const delay = this.options.publishDelayMs ?? DEFAULT_EVENT_PUBLISH_DELAY_MS;
    if (delay === 0) this.publishOutbox();
    else this.outboxTimer ??= setTimeout(() => this.publishOutbox(), delay);
  }

  private publishOutbox(): void {
    if (this.outboxTimer !== null) clearTimeout(this.outboxTimer);
    this.outboxTimer = null;
    const items = this.outbox;
    this.outbox = [];
    if (items.length === 0) return;
    const message = `${this.publisherId}${SEPARATOR}[${items.join(',')}]`;
    corkUntilNextTick(this.options.publisher);
    const mark = this.presence.mark;
    this.options.publisher.publish(this.options.channel, message).then(
      (receivers) => this.presence.counted(receivers, mark, this.listening),
      (error: unknown) => this.options.onError?.(error),
    );
  }

  /** Says on the channel that this process listens now; `ready()` waits for the answers (or a short while). */
  private sayHello(): void {
    this.greeted = this.options.publisher.publish(this.options.channel, this.control(this.presence.hello())).then(
      // Everyone but this process's own subscriber may answer.
      (receivers) => this.presence.answersFrom(receivers - 1),
      (error: unknown) => this.options.onError?.(error),
    );
  }

  /** A control message of `presence` as a channel message. */
  private control(text: string): string {
    return `${this.publisherId}${SEPARATOR}${text}`;
  }

  private readonly answer = (text: string): void => {
    this.options.publisher.publish(this.options.channel, this.control(text)).catch((error: unknown) => this.options.onError?.(error));
  };

  private deliver(events: readonly OjsEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  private ensureSubscribed(): void {
    if (this.subscribed || this.closed) return;
    const subscriber = this.options.createSubscriber();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.options.channel) return;
      const cut = message.indexOf(SEPARATOR);
      if (cut < 0 || message.startsWith(this.publisherId + SEPARATOR)) return;
      let events: unknown;
      try {
        events = JSON.parse(message.slice(cut + 1));
      } catch (error) {
        this.options.onError?.(error);
        return;
      }
      if (Array.isArray(events)) this.deliver((events as Array<PackedEvent | OjsEvent | EventGroup>).flatMap(unpackItem));
      else {
        const control = presenceMessage(events);
        if (control !== undefined) this.presence.handle(control, this.answer);
      }
    });
    // While the subscriber is down this process would miss a hello: it publishes, whoever listens.
    let dropped = false;
    subscriber.on('close', () => {
      dropped = true;
      this.listening = false;
      this.presence.deaf();
    });
    // ioredis re-subscribes after a reconnect by itself; subscribing again only tells when that is done.
    subscriber.on('ready', () => {
      if (!dropped || this.closed) return;
      dropped = false;
      void this.listen(subscriber);
    });
    this.subscribed = this.listen(subscriber);
  }

  private listen(subscriber: Redis): Promise<void> {
    return subscriber.subscribe(this.options.channel).then(
      () => {
        if (this.closed || subscriber !== this.subscriber) return;
        this.listening = true;
        this.sayHello();
      },
      (error: unknown) => {
        this.options.onError?.(error);
      },
    );
  }

}
