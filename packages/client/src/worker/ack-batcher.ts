/**
 * Batched ACKs, the worker's throughput lever. A completion never waits on a fixed timer: with no batch in
 * flight, what is waiting goes out at the end of the current event-loop turn (every handler that finished in
 * that turn shares one `ackMany`); while a batch is in flight, completions accumulate and go out the moment
 * it is answered, or once `maxSize` are waiting, or after `maxDelayMs` behind a slow batch. Without `ackMany`
 * on the transport, a batch goes out as concurrent single ACKs.
 */
import { OjsError } from '@ojskit/core';
import { ackRequest } from '../mapping/worker-protocol.js';
import { supportsAckMany, type AckManyItemResult, type Transport } from '../transport/transport.js';

/**
 * One completion to send, told how its ACK ended: exactly one of `acked`/`refused` is called, once, and
 * neither may throw. The worker's own runs are such items, which spares each job a promise and an object.
 */
export interface PendingAck {
  readonly jobId: string;
  readonly attempt: number;
  readonly result: unknown;
  acked(): void;
  refused(error: unknown): void;
}

/** Counters of what the batcher sent. */
export interface AckStats {
  /** Calls made to the transport (`ackMany` or `ack`). */
  calls: number;
  /** Jobs acknowledged successfully. */
  acked: number;
}

/** Runs `fn` once the current event-loop turn's I/O callbacks have run (`setImmediate` where there is one). */
const atEndOfTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (fn) => void globalThis.setImmediate(fn) : (fn) => void setTimeout(fn, 0);

export class AckBatcher {
  private pending: PendingAck[] = [];
  /** A send is queued for the end of this turn. */
  private queued = false;
  /** Bounds how long completions wait behind an in-flight batch. */
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  readonly stats: AckStats = { calls: 0, acked: 0 };

  constructor(
    private readonly api: Transport,
    private readonly workerId: string,
    private readonly batch: false | { maxSize: number; maxDelayMs: number; maxInFlight?: number },
  ) {}

  /** Acknowledges one job; resolves once the server accepted it, rejects with its `OjsError` otherwise. */
  ack(jobId: string, attempt: number, result: unknown): Promise<void> {
    return new Promise<void>((resolve, reject) => this.add({ jobId, attempt, result, acked: resolve, refused: reject }));
  }

  /** `ack` for the worker's hot path: tells the item how its ACK ended instead of settling a promise. */
  add(item: PendingAck): void {
    if (!this.batch) {
      this.stats.calls += 1;
      let sending: Promise<unknown>;
      try {
        sending = this.api.ack(ackRequest(item.jobId, item.attempt, item.result, this.workerId));
      } catch (error) {
        sending = Promise.reject(error);
      }
      sending.then(
        () => {
          this.stats.acked += 1;
          item.acked();
        },
        (error: unknown) => item.refused(error),
      );
      return;
    }
    this.pending.push(item);
    if (this.pending.length >= this.batch.maxSize) this.sendPending();
    else if (this.inFlight.size < this.maxInFlight) this.queueSend();
    // Behind an in-flight batch: its answer sends these; the timer only bounds the wait if it is slow.
    else this.lingerTimer ??= setTimeout(() => this.sendPending(), this.batch.maxDelayMs);
  }

  /**
   * Withdraws a completion not sent yet (the job came back to this worker for a new attempt, so this ACK
   * belongs to a lost attempt and must not complete the new one). Returns false when it was already sent.
   */
  withdraw(jobId: string, reason: Error): boolean {
    const index = this.pending.findIndex((item) => item.jobId === jobId);
    if (index < 0) return false;
    const [item] = this.pending.splice(index, 1);
    // Told after the caller's turn, as a rejected promise would be: the caller is still handling the new attempt.
    queueMicrotask(() => item!.refused(reason));
    return true;
  }

  /** Sends whatever is waiting now; resolves when every batch sent so far (and any it chained) has been answered. */
  async flush(): Promise<void> {
    this.sendPending();
    while (this.inFlight.size > 0) {
      await Promise.all([...this.inFlight]);
      this.sendPending();
    }
  }

  private get maxInFlight(): number {
    return (this.batch && this.batch.maxInFlight) || 1;
  }

  private queueSend(): void {
    if (this.queued) return;
    this.queued = true;
    atEndOfTurn(() => {
      this.queued = false;
      // A batch that went out meanwhile (full, or flushed) carries on the chain: only send if there is room in flight.
      if (this.inFlight.size < this.maxInFlight) this.sendPending();
    });
  }

  private sendPending(): void {
    if (this.lingerTimer !== undefined) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const sending = this.send(batch);
    this.inFlight.add(sending);
    void sending.finally(() => {
      this.inFlight.delete(sending);
      // What accumulated while this batch was out goes now: one round trip of waiting, never a timer tick.
      if (this.pending.length > 0 && this.inFlight.size < this.maxInFlight) this.sendPending();
    });
  }

  private async send(batch: PendingAck[]): Promise<void> {
    this.stats.calls += supportsAckMany(this.api) ? 1 : batch.length;
    if (!supportsAckMany(this.api)) {
      await Promise.all(
        batch.map((item) =>
          this.api.ack(ackRequest(item.jobId, item.attempt, item.result, this.workerId)).then(
            () => {
              this.stats.acked += 1;
              item.acked();
            },
            (error: unknown) => item.refused(error),
          ),
        ),
      );
      return;
    }
    let results: AckManyItemResult[];
    try {
      ({ results } = await this.api.ackMany({ acks: batch.map((item) => ackRequest(item.jobId, item.attempt, item.result, this.workerId)) }));
    } catch (error) {
      for (const item of batch) item.refused(error);
      return;
    }
    // Results come in request order; ids are looked up only for a transport that answers otherwise.
    let byId: Map<string, AckManyItemResult> | undefined;
    const outcomeAt = (i: number): AckManyItemResult | undefined => {
      const id = batch[i]!.jobId;
      if (results[i]?.job_id === id) return results[i];
      byId ??= new Map(results.map((r) => [r.job_id, r]));
      return byId.get(id);
    };
    // Counted before anyone is told, so a `completed` listener sees the batch in the stats.
    for (let i = 0; i < batch.length; i++) if (outcomeAt(i)?.ok) this.stats.acked += 1;
    for (let i = 0; i < batch.length; i++) {
      const item = batch[i]!;
      const outcome = outcomeAt(i);
      if (outcome?.ok) item.acked();
      else if (outcome) item.refused(OjsError.fromBody(outcome.error));
      else item.refused(new OjsError('backend_error', `ackMany returned no result for job ${item.jobId}.`));
    }
  }
}
