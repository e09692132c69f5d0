/** Wire-format checks shared by the cases. */
import { expect } from 'vitest';
import { isUuidV7 } from '@ojskit/core/formats';

/** A server-generated timestamp: UTC with milliseconds. */
export const SERVER_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function expectServerTimestamp(value: unknown, field: string): void {
  expect(value, `${field} must be a UTC timestamp with ms`).toMatch(SERVER_TIMESTAMP);
}

export function expectUuidV7(value: unknown, field = 'id'): void {
  expect(isUuidV7(value), `${field} must be a lowercase UUIDv7, got ${String(value)}`).toBe(true);
}

/** Polls `check` with real timers until it returns true (for asynchronous deliveries such as subscriptions). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
