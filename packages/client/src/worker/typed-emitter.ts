/** A small typed event emitter (no Node dependency, so the SDK also runs in browsers and edge runtimes). */

type Listener<Args extends unknown[]> = (...args: Args) => void;
// Listeners of different events live in one map; each is only ever called with its own event's arguments.
type AnyListener = (...args: unknown[]) => void;

/** Emits events whose names and argument tuples are declared by `Events`. */
export class TypedEmitter<Events extends { [name: string]: unknown[] }> {
  /**
   * Each event's listeners, replaced (never changed in place) when one is added or removed: an emit walks the
   * array it started with, unaffected by listeners added or removed meanwhile, without copying it per event.
   */
  private readonly listeners = new Map<keyof Events, readonly AnyListener[]>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const current = this.listeners.get(event) ?? [];
    // Adding a listener twice keeps one registration, as a set would.
    if (!current.includes(listener as unknown as AnyListener)) this.listeners.set(event, [...current, listener as unknown as AnyListener]);
    return () => this.off(event, listener);
  }

  /** Adds a listener that runs once. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(event, ((...args: Events[K]) => {
      off();
      listener(...args);
    }) as Listener<Events[K]>);
    return off;
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    const current = this.listeners.get(event);
    if (!current) return;
    const index = current.indexOf(listener as unknown as AnyListener);
    if (index < 0) return;
    const rest = current.filter((_, i) => i !== index);
    if (rest.length > 0) this.listeners.set(event, rest);
    else this.listeners.delete(event);
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /** Calls every listener; a throwing listener does not stop the others or the caller. */
  protected emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    const listeners = this.listeners.get(event);
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
