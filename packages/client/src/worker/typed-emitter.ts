/** A small typed event emitter (no Node dependency, so the SDK also runs in browsers and edge runtimes). */

type Listener<Args extends unknown[]> = (...args: Args) => void;
// Listeners of different events live in one map; each is only ever called with its own event's arguments.
type AnyListener = (...args: unknown[]) => void;

/** Emits events whose names and argument tuples are declared by `Events`. */
export class TypedEmitter<Events extends { [name: string]: unknown[] }> {
  private readonly listeners = new Map<keyof Events, Set<AnyListener>>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as unknown as AnyListener);
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
    this.listeners.get(event)?.delete(listener as unknown as AnyListener);
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  /** Calls every listener; a throwing listener does not stop the others or the caller. */
  protected emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
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
