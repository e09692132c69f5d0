/** Backpressure headers on accepted enqueues: how full the queue is once it passes its warning threshold. */
import type { QueuePressure } from '@ojskit/core';

/** `X-OJS-Queue-Depth`, `X-OJS-Queue-Bound` and `X-OJS-Queue-Pressure` (depth / bound), or none. */
export function pressureHeaders(pressure: QueuePressure | undefined): Record<string, string> {
  if (pressure === undefined) return {};
  return {
    'X-OJS-Queue-Depth': String(pressure.depth),
    'X-OJS-Queue-Bound': String(pressure.bound),
    'X-OJS-Queue-Pressure': pressure.pressure.toFixed(2),
  };
}
