/** The open event streams of a gateway, so a graceful shutdown can end them (they never finish on their own). */

export class StreamRegistry {
  private readonly closers = new Set<() => void>();
  /** True once `closeAll` ran: no new streams are accepted. */
  closed = false;

  /** Registers a stream's closer; returns the function that unregisters it. */
  add(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  get size(): number {
    return this.closers.size;
  }

  /** Ends every open stream. */
  closeAll(): void {
    this.closed = true;
    for (const close of [...this.closers]) close();
    this.closers.clear();
  }
}
