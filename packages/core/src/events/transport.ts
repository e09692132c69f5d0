/** The seam that carries events between engines sharing a store; a driver may provide one. */
import type { OjsEvent } from './event.js';

/** How events travel between engines sharing a store. Publishing must not block on slow subscribers. */
export interface EventTransport {
  publish(events: readonly OjsEvent[], tx?: unknown): void | Promise<void>;
  /** Receives every published event (this process's and others'), in publish order per publisher. */
  subscribe(listener: (events: readonly OjsEvent[]) => void): () => void;
  /**
   * True while events published now would reach no other process (nobody else listens, no probe is due) and
   * none published earlier still waits for local delivery. The hub then keeps this process's events itself,
   * unbuilt, as it does without a transport, and does not hand them to `publish`; events inside a caller's
   * transaction still go to `publish`. Absent: always false.
   */
  readonly quiet?: boolean;
  /**
   * Up to `limit` events published after the event `after` (by any process), oldest first, read from the
   * transport's durable store; undefined when the store does not hold `after` (trimmed by retention, or never
   * stored). `more`: events beyond `limit` follow. Absent: the transport keeps no store, and a cursor outside
   * the hub's window is expired.
   */
  replay?(after: string, limit: number): Promise<{ events: OjsEvent[]; more: boolean } | undefined>;
}
