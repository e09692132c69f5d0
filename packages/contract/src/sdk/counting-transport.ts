/** A transport wrapper that records the worker-side calls going through it, to test batching and polling. */
import type { Transport } from '@ojskit/client';

/** What went through the wrapper. */
export interface TransportCalls {
  /** Each FETCH: the `count` asked for, how long the server may hold it (`wait_ms`, 0 when absent) and how many jobs came back. */
  fetch: Array<{ count: number; waitMs: number; returned: number }>;
  /** Each single ACK. */
  ack: number;
  /** Each batched ACK: its size. */
  ackMany: number[];
  nack: number;
  heartbeat: number;
  /** The most FETCHes that were out at once. */
  maxFetchesInFlight: number;
  /** The most jobs that FETCHes out at once asked for (their `count`s added up). */
  maxJobsAskedInFlight: number;
  /**
   * Calls and FETCH answers in the order they happened: `fetch` and `ack` (either kind) when called,
   * `fetched:<n>` when a FETCH answered with n jobs.
   */
  order: string[];
}

const COUNTED = new Set(['fetch', 'ack', 'ackMany', 'nack', 'heartbeat']);

/**
 * Wraps a transport so that its `fetch`, `ack`, `ackMany`, `nack` and `heartbeat` calls are counted.
 * Every other member passes through untouched (so `ackMany` is present exactly when the inner one is).
 */
export function countingTransport(inner: Transport): { api: Transport; calls: TransportCalls } {
  const calls: TransportCalls = { fetch: [], ack: 0, ackMany: [], nack: 0, heartbeat: 0, maxFetchesInFlight: 0, maxJobsAskedInFlight: 0, order: [] };
  let fetchesOut = 0;
  let askedOut = 0;
  const api = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== 'string' || !COUNTED.has(property)) return method.bind(target);
      return async (...args: unknown[]) => {
        const request = args[0] as { count?: number; wait_ms?: number; acks?: unknown[] };
        if (property === 'fetch' || property === 'ack' || property === 'ackMany') calls.order.push(property === 'fetch' ? 'fetch' : 'ack');
        if (property === 'ack') calls.ack += 1;
        else if (property === 'ackMany') calls.ackMany.push(request.acks?.length ?? 0);
        else if (property === 'nack') calls.nack += 1;
        else if (property === 'heartbeat') calls.heartbeat += 1;
        if (property === 'fetch') {
          calls.maxFetchesInFlight = Math.max(calls.maxFetchesInFlight, ++fetchesOut);
          askedOut += request.count ?? 1;
          calls.maxJobsAskedInFlight = Math.max(calls.maxJobsAskedInFlight, askedOut);
        }
        let response: unknown;
        try {
          response = await method.apply(target, args);
        } finally {
          if (property === 'fetch') {
            fetchesOut--;
            askedOut -= request.count ?? 1;
          }
        }
        if (property === 'fetch') calls.order.push(`fetched:${(response as { jobs: unknown[] }).jobs.length}`);
        if (property === 'fetch')
          calls.fetch.push({ count: request.count ?? 1, waitMs: request.wait_ms ?? 0, returned: (response as { jobs: unknown[] }).jobs.length });
        return response;
      };
    },
  });
  return { api, calls };
}
