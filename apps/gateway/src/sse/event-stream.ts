/**
 * Server-Sent Events of engine events. Each client gets a bounded buffer fed by `engine.subscribe`; the
 * listener only pushes into it, so a slow client can never slow the engine: when its buffer is full it is
 * dropped (the stream ends) and it resumes with `Last-Event-ID` from the engine's event log.
 */
import { OjsError, type EventFilter, type OjsEvent } from '@ojskit/core';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { GatewayEngine } from '../engine-port.js';
import type { GatewayContext } from '../http/env.js';
import type { StreamRegistry } from './stream-registry.js';

export interface EventStreamOptions {
  /** Interval of `: keep-alive` comments while no event flows (default 15 000 ms). */
  keepAliveMs: number;
  /** Events buffered per client before it is dropped as too slow (default 1 000). */
  bufferSize: number;
  /** Most events replayed on resume; the engine's event log bounds the window (default 1 000). */
  resumeLimit: number;
  /** Reconnection delay advertised to clients in the `retry:` field (default 2 000 ms). */
  retryMs: number;
}

export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = {
  keepAliveMs: 15_000,
  bufferSize: 1_000,
  resumeLimit: 1_000,
  retryMs: 2_000,
};

/**
 * SSE event type sent when `Last-Event-ID` is outside the window: an ojskit extension frame, not an OJS
 * event (clients that do not know it should ignore it; `@ojskit/client` does).
 */
export const CURSOR_EXPIRED_EVENT = 'ojs.cursor_expired';

const encoder = new TextEncoder();

/**
 * Each event's SSE frame, encoded once and shared by every stream that sends it: the hub hands all
 * subscribers the same event object. Serialising per subscriber made 100 subscribers cost 99% of the
 * enqueue throughput (bench/sse-fanout.ts). `JSON.stringify` writes no line breaks, so `data:` is one line.
 */
const frames = new WeakMap<OjsEvent, Uint8Array>();

function frameOf(event: OjsEvent): Uint8Array {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = encoder.encode(`event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

/**
 * The frames of a run of events, joined once and shared: subscribers without a filter (or with the same one)
 * take the same run from the hub in the same tick, and joining it per subscriber copied every frame once per
 * subscriber. Keyed by the run's first event; a run that differs in any event is joined anew (comparing
 * references costs far less than copying the frames).
 */
const runs = new WeakMap<OjsEvent, { events: readonly OjsEvent[]; bytes: Uint8Array }>();

function sameRun(a: readonly OjsEvent[], b: readonly OjsEvent[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

function framesOf(events: readonly OjsEvent[]): Uint8Array {
  const first = events[0]!;
  const kept = runs.get(first);
  if (kept !== undefined && sameRun(kept.events, events)) return kept.bytes;
  const bytes = Buffer.concat(events.map(frameOf));
  runs.set(first, { events, bytes });
  return bytes;
}

/** Writes the frames of `events` in one write (a write costs a round through the web stream, whatever its size). */
function writeEvents(stream: SSEStreamingApi, events: readonly OjsEvent[]): Promise<unknown> | undefined {
  if (events.length === 0) return undefined;
  if (events.length === 1) return stream.write(frameOf(events[0]!));
  return stream.write(framesOf(events));
}

/**
 * Streams events matching `filter`. The engine subscription is taken before the first byte is written, so
 * a client that has read the opening comment is guaranteed to see every later event.
 */
export function streamEvents(
  c: GatewayContext,
  engine: GatewayEngine,
  filter: EventFilter,
  resumeAfter: string | undefined,
  registry: StreamRegistry,
  options: EventStreamOptions,
): Response {
  // A stream opened during shutdown would hold the server open until the shutdown timeout.
  if (registry.closed)
    throw new OjsError('backend_unavailable', 'The gateway is shutting down; reconnect to another instance.', { details: { reason: 'draining' } });
  // HEAD gets the headers only: Hono runs the GET handler and drops the body, so a stream opened here would
  // keep its engine subscription (and its share of every event) forever.
  if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  // Proxies (nginx) must not buffer the stream.
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    const pending: OjsEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      wake?.();
      // Ends the response even while a write to a stalled socket is pending.
      stream.abort();
    };
    const unsubscribe = engine.subscribe(filter, (event) => {
      if (done) return;
      if (pending.length >= options.bufferSize) {
        finish();
        return;
      }
      pending.push(event);
      // Once per batch: the loop takes everything pending when it runs. Waking it again for every event of a
      // batch (a cleared timer cleared again, a settled promise resolved again) was 1 µs per event and
      // subscriber, a sixth of the gateway's CPU with 100 subscribers (bench/sse-fanout.ts, --cpu-prof).
      const woken = wake;
      wake = undefined;
      woken?.();
    });
    const unregister = registry.add(finish);
    stream.onAbort(finish);
    try {
      await stream.write(`retry: ${options.retryMs}\n: connected\n\n`);
      const replayed = new Set<string>();
      if (resumeAfter !== undefined && resumeAfter.length > 0) {
        const replay = await engine.pollEvents({ ...filter, after: resumeAfter, limit: options.resumeLimit });
        if (done) return;
        // The cursor is no longer (or never was) in this gateway's window: say so before replaying from the
        // oldest kept event, so the client knows events in between may be missing. No `id:`, so the client's
        // Last-Event-ID stays the one it sent until the replay moves it.
        if (replay.cursor_expired) {
          const oldest = replay.events[0]?.id ?? null;
          await stream.write(`event: ${CURSOR_EXPIRED_EVENT}\ndata: ${JSON.stringify({ last_event_id: resumeAfter, oldest_event_id: oldest })}\n\n`);
        }
        for (const event of replay.events) replayed.add(event.id);
        await writeEvents(stream, replay.events);
      }
      while (!done) {
        if (pending.length === 0) {
          const woke = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), options.keepAliveMs);
            wake = () => {
              clearTimeout(timer);
              resolve(true);
            };
          });
          wake = undefined;
          if (!woke && !done) await stream.write(': keep-alive\n\n');
          continue;
        }
        let batch = pending.splice(0, pending.length);
        if (replayed.size > 0) {
          batch = batch.filter((event) => !replayed.has(event.id));
          replayed.clear();
        }
        await writeEvents(stream, batch);
      }
    } finally {
      done = true;
      unsubscribe();
      unregister();
    }
  });
}
