/** Assertions on the OJS errors an operation must throw. */
import { expect } from 'vitest';
import { errorInfo, isOjsError, type OjsError } from '@ojskit/core';

/** What a rejected operation must look like. `details` is matched as a subset. */
export interface ExpectedError {
  code: string;
  /** Defaults to the catalog status of `code`. */
  status?: number;
  details?: Record<string, unknown>;
}

/**
 * Awaits `operation` and asserts it failed with the expected OJS error; returns the error for further checks.
 * @example await expectOjsError(api.ack({ job_id }), { code: 'conflict', details: { current_state: 'available' } })
 */
export async function expectOjsError(operation: Promise<unknown>, expected: ExpectedError): Promise<OjsError> {
  let outcome: unknown;
  try {
    outcome = await operation;
  } catch (error) {
    if (!isOjsError(error)) throw new Error(`expected OjsError '${expected.code}' but got a non-OJS error: ${String(error)}`, { cause: error });
    expect({ code: error.code, status: error.status }).toEqual({ code: expected.code, status: expected.status ?? errorInfo(expected.code).status });
    expect(error.retryable, `retryable flag of '${error.code}'`).toBe(errorInfo(expected.code).retryable);
    expect(error.message.length, 'error message must be non-empty').toBeGreaterThan(0);
    if (expected.details) expect(error.details ?? {}).toMatchObject(expected.details);
    return error;
  }
  throw new Error(`expected OjsError '${expected.code}' but the operation succeeded with ${JSON.stringify(outcome)}`);
}

/** Runs `operation` and returns `ok` or the OJS error code it failed with (non-OJS errors propagate). */
export async function outcomeOf(operation: Promise<unknown>): Promise<'ok' | string> {
  try {
    await operation;
    return 'ok';
  } catch (error) {
    if (isOjsError(error)) return error.code;
    throw error;
  }
}

/** Runs `operation` and returns `ok` or the OJS error it failed with (non-OJS errors propagate). */
export async function settle(operation: Promise<unknown>): Promise<'ok' | OjsError> {
  try {
    await operation;
    return 'ok';
  } catch (error) {
    if (isOjsError(error)) return error;
    throw error;
  }
}
