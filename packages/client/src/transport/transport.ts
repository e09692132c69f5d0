/**
 * What `Client` and `Worker` talk to: an `OjsApi`. The in-process `Engine` is one (over any driver); the HTTP
 * transport is another. Both may add `ackMany`, the batched ACK the worker uses when it is there.
 */
import type { AckManyResponse, AckManyResult, OjsApi } from '@ojskit/core';
import type { AckManyItem } from '@ojskit/core/schemas';

/** One ACK of a batch: core's type, read from the batched-ACK request schema. */
export type { AckManyItem };

/** Per-job outcome of a batched ACK, in request order (core's `AckManyResult`, declared once by its schema). */
export type AckManyItemResult = AckManyResult;

export type { AckManyResponse };

/** Batched ACK: each job is acknowledged independently (one failing ACK does not fail the others). */
export interface BatchAck {
  ackMany(request: { acks: AckManyItem[] }): Promise<AckManyResponse>;
}

/** Any `OjsApi`, optionally with batched ACKs. */
export type Transport = OjsApi & Partial<BatchAck>;

/** True when the transport can acknowledge a batch in one call. */
export function supportsAckMany(api: Transport): api is OjsApi & BatchAck {
  return typeof api.ackMany === 'function';
}
