import { expect } from 'vitest';
import { OjsError } from '../src/index.js';

/** Runs `fn`, asserts it throws an OjsError with this code and status, and returns the error for further checks. */
export function expectOjsError(fn: () => unknown, code: string, status: number): OjsError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected OjsError ${code}`).toBeInstanceOf(OjsError);
  const err = caught as OjsError;
  expect({ code: err.code, status: err.status, message: err.message }).toMatchObject({ code, status });
  expect(err.message.length).toBeGreaterThan(0);
  return err;
}
