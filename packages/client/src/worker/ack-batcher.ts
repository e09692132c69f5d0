/**
 * Batched ACKs, the worker's throughput lever. A completion never waits on a fixed timer: with no batch in
 * flight, what is waiting goes out at the end of the current event-loop turn (every handler that finished in
 * that turn shares one `ackMany`); while a batch is in flight, completions accumulate and go out the moment
 * it is answered, or once `maxSize` are waiting, or after `maxDelayMs` behind a slow batch. Without `ackMany`
 * on the transport, a batch goes out as concurrent single ACKs.
 */
import { OjsError } from '@ojskit/core';
import { ackRequest } from '../mapping/worker-protocol.js';
import { supportsAckMany, type Transport } from '../transport/transport.js';

interface PendingAck {
  jobId: string;
  attempt: number;
  result: unknown;
  resolve: () => void;
  reject: (error: unknown) => void;
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
    if (!this.batch) {
      this.stats.calls += 1;
      return this.api.ack(ackRequest(jobId, attempt, result, this.workerId)).then(() => {
        this.stats.acked += 1;
      });
    }
    const { maxSize, maxDelayMs } = this.batch;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ jobId, attempt, result, resolve, reject });
      if (this.pending.length >= maxSize) this.sendPending();
      else if (this.inFlight.size < this.maxInFlight) this.queueSend();
      // Behind an in-flight batch: its answer sends these; the timer only bounds the wait if it is slow.
      else this.lingerTimer ??= setTimeout(() => this.sendPending(), maxDelayMs);
    });
  }

  /**
   * Withdraws a completion not sent yet (the job came back to this worker for a new attempt, so this ACK
   * belongs to a lost attempt and must not complete the new one). Returns false when it was already sent.
   */
  withdraw(jobId: string, reason: Error): boolean {
    const index = this.pending.findIndex((item) => item.jobId === jobId);
    if (index < 0) return false;
    const [item] = this.pending.splice(index, 1);
    item!.reject(reason);
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
              item.resolve();
            },
            (error: unknown) => item.reject(error),
          ),
        ),
      );
      return;
    }
    try {
      const { results } = await this.api.ackMany({ acks: batch.map((item) => ackRequest(item.jobId, item.attempt, item.result, this.workerId)) });
      const byId = new Map(results.map((r) => [r.job_id, r]));
      for (const item of batch) {
        const outcome = byId.get(item.jobId);
        if (outcome?.ok) {
          this.stats.acked += 1;
          item.resolve();
        } else if (outcome) item.reject(OjsError.fromBody(outcome.error));
        else item.reject(new OjsError('backend_error', `ackMany returned no result for job ${item.jobId}.`));
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
