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
}
