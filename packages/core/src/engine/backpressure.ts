/** Backpressure (backpressure extension): the bounds an insert carries, the refusal, and the pressure report. */
import type { QueueConfigRecord, QueueFullRejection } from '../driver/admin.js';
import { OjsError } from '../errors/ojs-error.js';
import type { QueuePressure } from '../api/admin-responses.js';

/** Depth / bound from which an accepted enqueue reports its queue's pressure (the extension's default). */
export const DEFAULT_WARNING_THRESHOLD = 0.8;
/** `Retry-After` of a refusal when the queue names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** The most pressed queue at or over its warning threshold after an insert, if any. */
export function queuePressure(depths: Readonly<Record<string, number>>, configs: ReadonlyMap<string, QueueConfigRecord>): QueuePressure | undefined {
  let worst: QueuePressure | undefined;
  for (const [queue, depth] of Object.entries(depths)) {
    const config = configs.get(queue);
    const bound = config?.max_depth;
    if (bound === undefined || bound <= 0) continue;
    const pressure = Math.min(1, Math.round((depth / bound) * 1000) / 1000);
    if (pressure < (config?.warning_threshold ?? DEFAULT_WARNING_THRESHOLD)) continue;
    if (worst === undefined || pressure > worst.pressure) worst = { queue, depth, bound, pressure };
  }
  return worst;
}

/** `429 QUEUE_FULL`; `details` carry what the gateway turns into `Retry-After` and `X-OJS-Queue-*` headers. */
export function queueFullError(result: QueueFullRejection, config: QueueConfigRecord | undefined, batch: boolean): OjsError {
  const where = batch ? `jobs[${result.index}]: ` : '';
  return new OjsError('QUEUE_FULL', `${where}Queue '${result.queue}' has reached its depth bound (${result.bound}).`, {
    details: {
      queue: result.queue,
      depth: result.depth,
      bound: result.bound,
      strategy: 'reject',
      retry_after_seconds: config?.retry_after_seconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      ...(batch ? { index: result.index } : {}),
    },
  });
}
