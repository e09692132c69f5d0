/** A timer for any delay: Node and browsers fire a `setTimeout` over 2³¹−1 ms after 1 ms instead. */

/** Longest delay one `setTimeout` can wait (about 24.8 days); longer ones overflow and fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A running timer; `cancel()` is idempotent. */
export interface LongTimer {
  cancel(): void;
}

/**
 * Calls `fn` after `ms` milliseconds, however long: a delay beyond `MAX_TIMER_MS` is waited in steps. A delay
 * that is not a finite number (Infinity, NaN) never fires.
 * @example const t = startTimer(() => console.log('late'), 40 * 86_400_000); t.cancel();
 */
export function startTimer(fn: () => void, ms: number): LongTimer {
  if (ms <= MAX_TIMER_MS) {
    // The usual case, one handle and nothing to re-arm.
    const only = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(only) };
  }
  let handle: ReturnType<typeof setTimeout> | undefined;
  let cancelled = false;
  const deadline = Date.now() + ms;
  const arm = (wait: number): void => {
    if (cancelled || !Number.isFinite(wait)) return;
    if (wait <= MAX_TIMER_MS) {
      handle = setTimeout(fn, Math.max(0, wait));
      return;
    }
    handle = setTimeout(() => arm(deadline - Date.now()), MAX_TIMER_MS);
  };
  arm(ms);
  return {
    cancel: () => {
      cancelled = true;
      if (handle !== undefined) clearTimeout(handle);
    },
  };
}
