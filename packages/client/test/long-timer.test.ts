/** Timers beyond setTimeout's 2³¹−1 ms (issue 25 item 2): they wait their whole delay, not 1 ms. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, startTimer } from '../src/timing/long-timer.js';

describe('startTimer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([MAX_TIMER_MS + 1, 3_000_000_000, 10 * MAX_TIMER_MS + 7])('waits the whole %d ms', (ms) => {
    const fn = vi.fn();
    startTimer(fn, ms);
    vi.advanceTimersByTime(1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ms - 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('fires short delays once, and never for a cancelled timer or an infinite delay', () => {
    const short = vi.fn();
    startTimer(short, 10);
    vi.advanceTimersByTime(10);
    expect(short).toHaveBeenCalledTimes(1);
    const cancelled = vi.fn();
    const t = startTimer(cancelled, 3 * MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    t.cancel();
    t.cancel();
    vi.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(cancelled).not.toHaveBeenCalled();
    const never = vi.fn();
    startTimer(never, Number.POSITIVE_INFINITY);
    vi.advanceTimersByTime(5 * MAX_TIMER_MS);
    expect(never).not.toHaveBeenCalled();
  });
});
