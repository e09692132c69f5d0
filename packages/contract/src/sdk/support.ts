/** Small helpers shared by the contract suites: deferreds, bounded waits, and case registration with skips. */
import { it } from 'vitest';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with the reason once the signal fires. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Polls `condition` every 5 ms; rejects after `ms`, naming what was awaited. */
export async function until(ms: number, what: string, condition: () => boolean): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** Rejects when `promise` takes longer than `ms`, naming what was awaited. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks a skip map: every id names a case and carries a written reason. */
export function checkSkips(suite: string, ids: readonly string[], skip: Record<string, string>): void {
  for (const [id, reason] of Object.entries(skip)) {
    if (!ids.includes(id)) throw new Error(`[${suite}] skip names no case: '${id}'`);
    if (reason.trim().length === 0) throw new Error(`[${suite}] skip '${id}' has no written reason`);
  }
}

/** Registers a case, or a visibly skipped one carrying its reason in the title. */
export function registerCase(id: string, title: string, skip: Record<string, string>, fn: () => Promise<void>, timeoutMs: number): void {
  const reason = skip[id];
  if (reason !== undefined) it.skip(`[${id}] ${title} (skipped: ${reason})`, () => {});
  else it(`[${id}] ${title}`, fn, timeoutMs);
}
