/** The latency loop of the benchmarks, the same for each system: an idle worker fed one job at a time. */

/** Resolves after `ms` milliseconds. */
export const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An idle worker on a queue of its own, and a producer that feeds it one job at a time. */
export interface LatencyProbe {
  /**
   * Enqueues one job per entry of `gapsMs`, each once the previous one completed and the worker then idled
   * `gapsMs[i]` ms (0: at once), and records enqueue→start and enqueue→completed (ms).
   */
  run(gapsMs: readonly number[]): Promise<{ start: number[]; done: number[] }>;
  close(): Promise<void>;
}

/**
 * Samples latency through `enqueue` with `startWorker`'s worker: the handler records the start, `completed`
 * the completion (the same loop for each system).
 */
export async function latencyProbe(
  startWorker: (onStart: () => void, onCompleted: () => void) => Promise<{ close(): Promise<void> }>,
  enqueue: (i: number) => Promise<unknown>,
): Promise<LatencyProbe> {
  let t0 = 0;
  let start: number[] = [];
  let done: number[] = [];
  let onDone: () => void = () => {};
  const worker = await startWorker(
    () => {
      start.push(performance.now() - t0);
    },
    () => {
      done.push(performance.now() - t0);
      onDone();
    },
  );
  // Let the worker settle into its idle wait before the first sample.
  await idle(200);
  return {
    async run(gapsMs) {
      start = [];
      done = [];
      for (let i = 0; i < gapsMs.length; i++) {
        if (gapsMs[i]! > 0) await idle(gapsMs[i]!);
        const finished = new Promise<void>((r) => (onDone = r));
        t0 = performance.now();
        await enqueue(i);
        await finished;
      }
      return { start, done };
    },
    close: () => worker.close(),
  };
}
