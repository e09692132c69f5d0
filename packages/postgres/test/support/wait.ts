/** Waiting on things that arrive asynchronously (notifications from Postgres). */

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets notifications that would arrive arrive (for asserting that something did NOT happen). */
export const settle = (ms = 300): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
