/** Identifiers: UUIDv7 job ids (the protocol requires v7, not the v4 `crypto.randomUUID()` gives). */
import { uuidv7 } from 'uuidv7';

/** Lowercase, hyphenated UUIDv7, as the protocol accepts it. */
export const UUIDV7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A new UUIDv7 (time-ordered, so ids sort by creation).
 * @example newId() // '019a…-7…'
 */
export function newId(): string {
  return uuidv7();
}

/** True for a lowercase UUIDv7 string. */
export function isUuidV7(value: unknown): value is string {
  return typeof value === 'string' && UUIDV7_PATTERN.test(value);
}

/** A request id for responses whose caller sent none. */
export function newRequestId(): string {
  return `req_${uuidv7()}`;
}

/** An event id. */
export function newEventId(): string {
  return `evt_${uuidv7()}`;
}
